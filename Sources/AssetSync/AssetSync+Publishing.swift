import AssetSyncManifestIO
import AssetSyncModel
import AssetSyncPull
import AssetSyncSystem

extension AssetSync {
    /// The text a described manifest is written in.
    public enum ManifestFormat: Sendable {
        case xml
        case json
        /// An RFC 5854 Metalink 4, which aria2 and other download managers read: every file's
        /// SHA-256 is computed for it, since a Metalink proves files by their hash and has no CRC-32.
        case metalink
    }

    /// Describes the directory at `directory` as a manifest whose files are fetched at `base` plus
    /// their paths: every regular file with its size and CRC-32, and its SHA-256 with `sha256` (always
    /// for a Metalink), its chunk list (for delta updates) with `chunks` (never in a Metalink). Returns
    /// the manifest's text, to publish beside the files. A name no manifest may list (`..`, a control
    /// character) fails the description.
    public static func describe(
        directory: String, base: String, format: ManifestFormat = .xml, sha256: Bool = false, chunks: Bool = false
    ) async throws(AssetSyncError) -> String {
        try await run { _ throws(AssetSyncError) in
            do throws(PublishFailure) {
                return try describe(directory: directory, base: base, withSHA256: sha256, chunks: chunks && format != .metalink, format: format).text
            } catch {
                throw AssetSyncError(error)
            }
        }
    }

    /// Describes the objects under a prefix of an S3-compatible bucket (`s3://BUCKET/PREFIX/`) as a
    /// manifest whose files are fetched at `base` plus their paths (nil: the prefix itself), without
    /// downloading an object whose CRC-32 the store keeps (a multipart upload's checksum of its parts'
    /// checksums never counts); the others are streamed once and hashed, and every object with
    /// `sha256` or for a Metalink. The store, its key and the transfers come from `network`
    /// (``NetworkSettings/objectStorage``). Returns the manifest's text.
    public static func describe(
        bucket: String, base: String? = nil, format: ManifestFormat = .xml, sha256: Bool = false, network: NetworkSettings = NetworkSettings()
    ) async throws(AssetSyncError) -> String {
        let options = try network.transferOptions()
        let storage = network.objectStorage.request
        return try await run { stop throws(AssetSyncError) in
            do throws(PublishFailure) {
                return try describe(
                    bucket: bucket, base: base, withSHA256: sha256, format: format, options: options, objectStorage: storage, stop: stop,
                    temporaryDirectory: TemporaryFile.processDirectory
                ).text
            } catch {
                throw AssetSyncError(error)
            }
        }
    }

    /// Signs the manifest file at `manifestPath` with the minisign secret key in `secretKeyFile`
    /// (`password` gives an encrypted key's password), writing `manifestPath.minisig`, whose trusted
    /// comment carries `version` (by default the current Unix time: it must grow with each release)
    /// and `expiresAt` (Unix seconds; nil never expires). Only a manifest a pull would accept is
    /// signed. Returns the signature's path; `PullRequest.trustedKeyFiles` accepts what it signs.
    public static func sign(
        manifestAt manifestPath: String, secretKeyFile: String, version: UInt64? = nil, expiresAt: Int64? = nil,
        password: (@Sendable () -> [UInt8]?)? = nil
    ) async throws(AssetSyncError) -> String {
        try await run { _ throws(AssetSyncError) in
            do throws(PublishFailure) {
                let manifest = try ManifestPublishing.manifestToSign(at: manifestPath)
                let key = try ManifestPublishing.secretKey(at: secretKeyFile, password: { password?() })
                return try ManifestPublishing.sign(
                    manifest.bytes, of: manifestPath, with: key, version: version ?? UInt64(max(0, wallClock())), expires: expiresAt)
            } catch {
                throw AssetSyncError(error)
            }
        }
    }

    /// Verifies and repairs: reads every file of the manifest in the destination, whatever the state
    /// index says, and downloads what is missing or corrupt, proven like any pull's files. The
    /// request's `verifyEverything` is taken as true.
    public static func repair(
        _ request: PullRequest, observe: @escaping @Sendable (PullEvent) -> Void = { _ in }
    ) async throws(AssetSyncError) -> PullReport {
        var repair = request
        repair.verifyEverything = true
        return try await pull(repair, observe: observe)
    }
}

extension AssetSync.ManifestFormat {
    /// The writer's name for this format.
    var written: ManifestWriter.Format {
        switch self {
        case .xml: .xml
        case .json: .json
        case .metalink: .meta4
        }
    }
}
