import AssetSyncCache
package import AssetSyncManifestIO
package import AssetSyncModel
package import AssetSyncSystem
package import AssetSyncTrust

/// The publishing side's use cases, run by the library and the command line alike: a directory
/// described as a manifest, a manifest's bytes read once and signed in minisign's format, and the
/// files they write replaced atomically.
package enum ManifestPublishing {
    /// The directory at `directory` as a manifest under `base` (a `/` added when it has none), every
    /// file's size and CRC-32, and with `withSHA256` its SHA-256, with `chunks` its chunk list.
    package static func describe(_ directory: String, base: String, withSHA256: Bool, chunks: Bool) throws(PublishFailure) -> Manifest {
        guard PathName.isDirectory(directory) else { throw .notADirectory(directory) }
        do {
            return try DirectoryDescription.describe(
                directory, base: base.hasSuffix("/") ? base : base + "/", withSHA256: withSHA256,
                chunking: chunks ? ChunkParameters.standard : nil)
        } catch {
            switch error {
            case .base(let problem): throw .invalidBase(problem)
            case .scan, .read: throw .unreadable(directory, error)
            case .unrepresentable: throw .unrepresentable(directory, error)
            }
        }
    }

    /// Refuses a base that `format`'s readers cannot fetch: a Metalink's clients take http(s) urls
    /// only, never an `s3://` one; checked before anything is described.
    package static func checkBase(_ base: String, for format: ManifestWriter.Format) throws(PublishFailure) {
        guard format == .meta4, URLRules.isObjectStoreURL(base) else { return }
        throw .invalidBase(ManifestError(
            manifest: "the base URL", problem: "a Metalink's URLs are http or https, which its clients fetch: give the base where the files are served"))
    }

    /// `manifest` as text in `format` (a Metalink's entries must give their SHA-256).
    package static func text(of manifest: Manifest, format: ManifestWriter.Format) -> String { ManifestWriter.render(manifest, as: format) }

    /// Replaces the file at `path` with `text`: a temporary beside it, then a rename.
    package static func write(_ text: String, to path: String) throws(PublishFailure) {
        do { try AtomicFile.write(text, to: path) } catch { throw .unwritable(path, error) }
    }

    /// The bytes of the manifest file at `path`, read once, and proven a manifest that pulls would
    /// accept: only such a one is worth a signature (and the key's password).
    package static func manifestToSign(at path: String) throws(PublishFailure) -> MemoryFile {
        let read: MemoryFile?
        do { read = try MemoryFile.read(path: path, limit: Int(Manifest.sizeLimit)) } catch { throw .manifestUnreadable(path, reason: error.reason) }
        guard let memory = read else { throw .manifestTooLarge(path) }
        do { _ = try ManifestReader.read(descriptor: memory.fd, name: path) } catch { throw .manifest(error) }
        return memory
    }

    /// The most bytes a secret key file may have: minisign's is two lines, under 300 bytes.
    static let secretKeyFileSizeLimit = 4096

    /// The minisign secret key in the file at `path`, read as every file under `.assetsync/` is
    /// (never blocking, a regular file only, bounded; a link to one is followed); `password` is asked
    /// only for an encrypted one.
    package static func secretKey(at path: String, password: () -> [UInt8]?) throws(PublishFailure) -> MinisignSecretKey {
        let read: RegularFileRead
        do { read = try RegularFileRead.read(path, limit: secretKeyFileSizeLimit, followingLinks: true, display: path) } catch {
            throw .keyUnreadable(path, reason: error.reason)
        }
        switch read {
        case .bytes(let bytes):
            do { return try MinisignSecretKey(fileText: String(decoding: bytes, as: UTF8.self), password: password) } catch {
                throw .keyInvalid(path, reason: error.description)
            }
        case .notRead(let reason):
            throw .keyNotRead(path, words: reason.words, notARegularFile: { if case .notRegular = reason { true } else { false } }())
        }
    }

    /// Signs `bytes`, the manifest at `path`, with `key`, its trusted comment carrying `version`,
    /// `expires` and the file's name, and writes the signature to `path.minisig`; that path.
    package static func sign(
        _ bytes: UnsafeRawBufferPointer, of path: String, with key: MinisignSecretKey, version: UInt64, expires: Int64?
    ) throws(PublishFailure) -> String {
        let comment = TrustedComment(version: version, expires: expires, file: String(PathName.split(path).name))
        let signature = MinisignSignature(
            signing: bytes, with: key, trustedComment: comment.text, untrustedComment: "signature from assetsync secret key")
        let output = path + ".minisig"
        try write(String(decoding: signature.file, as: UTF8.self), to: output)
        return output
    }
}
