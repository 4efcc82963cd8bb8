public import AssetSyncSystem
import CZlib
import Glibc

/// A running CRC-32 (IEEE, as zlib's `crc32`) over exactly the bytes fed to it.
public struct CRC32: Equatable, Sendable {
    public private(set) var value: UInt32 = 0

    public init() {}

    /// A CRC that continues from `value`, the CRC-32 of the bytes before.
    public init(resumingFrom value: UInt32) { self.value = value }

    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress else { return }
        value = UInt32(crc32_z(uLong(value), base.assumingMemoryBound(to: Bytef.self), bytes.count))
    }

    /// The CRC-32 of bytes A followed by bytes B, from A's CRC, B's CRC and B's length (zlib's
    /// `crc32_combine`): segments checksummed apart are proven as one file without a second read.
    /// Minimal stand-in until the ISA-L work's `CRC32.combine` lands.
    public static func combine(_ first: UInt32, _ second: UInt32, secondLength: Int64) -> UInt32 {
        UInt32(crc32_combine(uLong(first), uLong(second), Int(secondLength)))
    }

    /// The CRC-32 of the first `length` bytes of `fd`, read with `pread` in chunks of `buffer`'s size.
    public static func of(
        fd: Int32, length: Int64, buffer: UnsafeMutableRawBufferPointer, path: String
    ) throws(SystemError) -> UInt32 {
        var crc = CRC32()
        var offset: Int64 = 0
        while offset < length {
            let wanted = Int(min(Int64(buffer.count), length - offset))
            let got = try FileDescriptor(fd, path: path).read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<wanted]), at: offset)
            if got == 0 { throw SystemError("read", path: path, code: EIO) }
            crc.update(UnsafeRawBufferPointer(rebasing: buffer[0..<got]))
            offset += Int64(got)
        }
        return crc.value
    }
}
