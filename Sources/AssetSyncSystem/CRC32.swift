import CIsal
import CZlib
import Glibc

/// A running CRC-32 (IEEE, as zlib's `crc32`) over exactly the bytes fed to it: computed by
/// ISA-L's `crc32_gzip_refl` (the same CRC, about five times zlib 1.2.13's speed here), joined
/// by zlib's `crc32_combine`, which ISA-L lacks.
package struct CRC32: Equatable, Sendable {
    package private(set) var value: UInt32 = 0

    package init() {}

    /// A CRC that continues from `value`, the CRC-32 of the bytes before.
    package init(resumingFrom value: UInt32) { self.value = value }

    package mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress else { return }
        value = crc32_gzip_refl(value, base.assumingMemoryBound(to: UInt8.self), UInt64(bytes.count))
    }

    /// The CRC-32 of two adjacent stretches of bytes, from the CRC `first` of the first, the
    /// CRC `second` of the second and the second's length, without reading the bytes again.
    package static func combine(_ first: UInt32, _ second: UInt32, _ lengthOfSecond: Int64) -> UInt32 {
        UInt32(crc32_combine(uLong(first), uLong(second), off_t(lengthOfSecond)))
    }

    /// The CRC-32 of the first `length` bytes of `fd`, read with `pread` in chunks of `buffer`'s size.
    package static func of(
        fd: Int32, length: Int64, buffer: UnsafeMutableRawBufferPointer, path: String, until shouldStop: () -> Bool = { false }
    ) throws(SystemError) -> UInt32 {
        var crc = CRC32()
        try FileDescriptor(fd, path: path).readPieces(length: length, buffer: buffer, until: shouldStop) { crc.update($0) }
        return crc.value
    }
}
