public import AssetSyncModel
import Glibc

/// A file's CRC-32 and, when asked for, its SHA-256, from one pass over its bytes.
public struct FileChecksums: Sendable {
    public var crc32: UInt32
    public var sha256: SHA256Digest?

    /// The checksums of the first `length` bytes of `fd`, read with `pread` in chunks of `buffer`'s
    /// size; the SHA-256 only `withSHA256`.
    public static func of(
        fd: Int32, length: Int64, withSHA256: Bool, buffer: UnsafeMutableRawBufferPointer, path: String
    ) throws(SystemError) -> FileChecksums {
        guard withSHA256 else { return FileChecksums(crc32: try CRC32.of(fd: fd, length: length, buffer: buffer, path: path)) }
        var crc = CRC32()
        let hasher = SHA256()
        var offset: Int64 = 0
        while offset < length {
            let wanted = Int(min(Int64(buffer.count), length - offset))
            let got = try FileDescriptor(fd, path: path).read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<wanted]), at: offset)
            if got == 0 { throw SystemError("read", path: path, code: EIO) }
            let bytes = UnsafeRawBufferPointer(rebasing: buffer[0..<got])
            crc.update(bytes)
            hasher.update(bytes)
            offset += Int64(got)
        }
        return FileChecksums(crc32: crc.value, sha256: hasher.finish())
    }

    public init(crc32: UInt32, sha256: SHA256Digest? = nil) {
        self.crc32 = crc32
        self.sha256 = sha256
    }
}
