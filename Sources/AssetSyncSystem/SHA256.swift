package import AssetSyncModel
import CLibCrypto

/// A running SHA-256 over exactly the bytes fed to it: OpenSSL's libcrypto (EVP), which uses the
/// CPU's SHA extensions where there are some. A class: it owns libcrypto's context.
package final class SHA256 {
    private let context: OpaquePointer

    package init() {
        guard let context = EVP_MD_CTX_new(), EVP_DigestInit_ex(context, EVP_sha256(), nil) == 1 else {
            fatalError("libcrypto could not start a SHA-256 (out of memory)")
        }
        self.context = context
    }

    deinit { EVP_MD_CTX_free(context) }

    package func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        guard EVP_DigestUpdate(context, base, bytes.count) == 1 else { fatalError("libcrypto's SHA-256 update failed") }
    }

    /// The digest of every byte fed so far; the hasher then starts again from nothing.
    package func finish() -> SHA256Digest {
        var digest = (UInt64(0), UInt64(0), UInt64(0), UInt64(0))
        var length: UInt32 = 0
        let result = withUnsafeMutableBytes(of: &digest) { raw in
            EVP_DigestFinal_ex(context, raw.baseAddress!.assumingMemoryBound(to: UInt8.self), &length)
        }
        guard result == 1, length == 32, EVP_DigestInit_ex(context, EVP_sha256(), nil) == 1 else {
            fatalError("libcrypto's SHA-256 could not finish")
        }
        return withUnsafeBytes(of: &digest) { SHA256Digest(bytes: $0) }
    }

    /// The digest of `bytes` alone.
    package static func digest(of bytes: UnsafeRawBufferPointer) -> SHA256Digest {
        let hasher = SHA256()
        hasher.update(bytes)
        return hasher.finish()
    }

    /// The digest of the first `length` bytes of `fd`, read with `pread` in chunks of `buffer`'s size.
    package static func of(
        fd: Int32, length: Int64, buffer: UnsafeMutableRawBufferPointer, path: String
    ) throws(SystemError) -> SHA256Digest {
        let hasher = SHA256()
        try FileDescriptor(fd, path: path).readPieces(length: length, buffer: buffer) { hasher.update($0) }
        return hasher.finish()
    }
}
