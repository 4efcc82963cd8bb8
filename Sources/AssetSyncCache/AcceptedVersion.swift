import AssetSyncModel
package import AssetSyncSystem
import Glibc

/// `DEST/.assetsync/accepted-version`: the highest version of a signed manifest accepted for the cache
/// directory, and the key that signed it, so that an older signed manifest (a replay) is refused.
/// Written like every record under `.assetsync/`: a fresh name, fsync, rename, directory fsync.
package enum AcceptedVersion {
    static let fileName = "accepted-version"
    static let header = "assetsync accepted-version 1"
    static let sizeLimit = 4096

    /// The recorded version; nil when there is none, or it is torn or foreign (whoever can write
    /// `.assetsync/` can change DEST's files anyway: docs/security.md). Throws when it cannot be read.
    package static func highest(in root: CacheRoot) throws(SystemError) -> UInt64? {
        try decode(AtomicFile.read(fileName, in: root.metadataDirectory.raw, limit: sizeLimit, display: display(root.path)))
    }

    /// The recorded version of the cache directory at `path`, read without creating or locking anything
    /// (for `plan`); no `.assetsync/` gives nil.
    package static func highest(cacheAt path: String) throws(SystemError) -> UInt64? {
        guard let metadata = try? DirectoryHandle(opening: path + "/" + CacheNames.metadata, followingLink: false) else { return nil }
        return try withExtendedLifetime(metadata) { () throws(SystemError) in
            try decode(AtomicFile.read(fileName, in: metadata.raw, limit: sizeLimit, display: display(path)))
        }
    }

    /// Records `version`, signed by the key `keyID`, as the highest accepted.
    package static func record(_ version: UInt64, keyID: String, in root: CacheRoot) throws(SystemError) {
        let text = KeyValueRecord.encode([("version", String(version)), ("key", keyID)], header: header)
        try AtomicFile.replace(
            fileName, in: root.metadataDirectory.raw, stagingIn: root.partialDirectory.raw, with: Array(text.utf8),
            display: root.path + "/" + CacheNames.metadata)
    }

    private static func decode(_ bytes: [UInt8]?) -> UInt64? {
        bytes.flatMap { KeyValueRecord.decode(String(decoding: $0, as: UTF8.self), header: header) }?["version"].flatMap { UInt64($0) }
    }

    private static func display(_ path: String) -> String { path + "/" + CacheNames.metadata + "/" + fileName }
}
