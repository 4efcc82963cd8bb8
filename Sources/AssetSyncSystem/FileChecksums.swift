package import AssetSyncModel

/// A file's CRC-32 and, when asked for, its SHA-256, from one pass over its bytes.
package struct FileChecksums: Sendable {
    package var crc32: UInt32
    package var sha256: SHA256Digest?

    /// The checksums of the first `length` bytes of `fd`, read with `pread` in chunks of `buffer`'s
    /// size; the SHA-256 only `withSHA256`. `shouldStop` ends the read with `ECANCELED` (see `readPieces`).
    package static func of(
        fd: Int32, length: Int64, withSHA256: Bool, buffer: UnsafeMutableRawBufferPointer, path: String,
        until shouldStop: () -> Bool = { false }
    ) throws(SystemError) -> FileChecksums {
        guard withSHA256 else {
            return FileChecksums(crc32: try CRC32.of(fd: fd, length: length, buffer: buffer, path: path, until: shouldStop))
        }
        var crc = CRC32()
        let hasher = SHA256()
        try FileDescriptor(fd, path: path).readPieces(length: length, buffer: buffer, until: shouldStop) { bytes in
            crc.update(bytes)
            hasher.update(bytes)
        }
        return FileChecksums(crc32: crc.value, sha256: hasher.finish())
    }

    package init(crc32: UInt32, sha256: SHA256Digest? = nil) {
        self.crc32 = crc32
        self.sha256 = sha256
    }
}
