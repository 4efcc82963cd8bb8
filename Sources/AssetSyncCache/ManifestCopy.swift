import AssetSyncModel
package import AssetSyncSystem
import Glibc

/// The last copy of a remote manifest, kept in `.assetsync/manifest` with where it came
/// from and its validators in `.assetsync/manifest.meta`, so that the next fetch can ask
/// conditionally; its signature likewise in `.assetsync/manifest.minisig` (and `.meta`).
/// Each function takes the copy's `file` name: the manifest's unless told.
package enum ManifestCopy {
    package static let fileName = "manifest"
    /// The name of the copy of the manifest's signature (`URL.minisig`).
    package static let signatureName = "manifest.minisig"
    /// The most bytes `manifest.meta` may have: a URL and two validators fit many times over.
    static let metaSizeLimit = 64 << 10

    /// Where the copy came from, and its validators.
    package struct Meta: Equatable {
        package var url: String
        package var etag: String?
        package var lastModified: String?

        package init(url: String, etag: String?, lastModified: String?) {
            self.url = url
            self.etag = etag
            self.lastModified = lastModified
        }
    }

    /// The path of the copy.
    package static func path(in root: CacheRoot, file: String = fileName) -> String { root.path + "/" + CacheNames.metadata + "/" + file }

    /// The meta of the copy, or nil when either is missing, not a regular file, or torn.
    package static func meta(in root: CacheRoot, file: String = fileName) -> Meta? {
        let metaName = file + ".meta"
        // A meta that cannot be read only costs a full fetch.
        guard let bytes = (try? AtomicFile.read(metaName, in: root.metadataDirectory.raw, limit: metaSizeLimit, display: metaName)) ?? nil,
              let fields = KeyValueRecord.decode(String(decoding: bytes, as: UTF8.self))
        else { return nil }
        // A 304 makes the copy the manifest, so it must be a regular file (a FIFO there would block its reader).
        guard let url = fields["url"], root.metadataDirectory.kind(of: file) == S_IFREG
        else { return nil }
        return Meta(url: url, etag: fields["etag"], lastModified: fields["last-modified"])
    }

    /// A fresh temporary file in `partial/`, for one fetch attempt.
    package static func createTemporary(in root: CacheRoot, file: String = fileName) throws(SystemError) -> AtomicFile.Temporary {
        try AtomicFile.createTemporary(
            for: file, in: root.partialDirectory.raw, mode: 0o600, display: root.partialDirectory.path)
    }

    /// Removes the temporary file `name` (what an attempt that was not kept left).
    package static func removeTemporary(_ name: String, in root: CacheRoot) { try? root.partialDirectory.removeFile(name) }

    /// Moves the fresh copy in the temporary file `name` into place, then writes its meta (so a crash
    /// between leaves an old ETag: a full fetch next time).
    package static func keep(temporary name: String, meta: Meta, in root: CacheRoot, file: String = fileName) throws(SystemError) {
        let display = root.metadataDirectory.path
        try root.partialDirectory.rename(name, to: file, in: root.metadataDirectory, path: display + "/" + file)
        let text = KeyValueRecord.encode([("url", meta.url), ("etag", meta.etag), ("last-modified", meta.lastModified)])
        try AtomicFile.replace(file + ".meta", in: root.metadataDirectory.raw, stagingIn: root.partialDirectory.raw, with: Array(text.utf8), display: display)
    }
}
