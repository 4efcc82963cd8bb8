import AssetSyncSystem
package import AssetSyncCache
package import AssetSyncTransfer

/// A fetched manifest kept in the cache (`.assetsync/manifest`), fetched conditionally when
/// the copy there came from the same URL; or, named `ManifestCopy.signatureName`, its signature.
package final class CachedManifestDestination: ManifestDestination {
    private let root: CacheRoot
    /// The copy's name under `.assetsync/`.
    private let file: String
    /// The temporary file of the current attempt, until it is kept or dropped.
    private var temporary: String?

    package init(root: CacheRoot, file: String = ManifestCopy.fileName) {
        self.root = root
        self.file = file
    }

    package func cached(for url: String) -> CachedManifest? {
        guard let meta = ManifestCopy.meta(in: root, file: file), meta.url == url else { return nil }
        return CachedManifest(path: ManifestCopy.path(in: root, file: file), etag: meta.etag, lastModified: meta.lastModified)
    }

    package func openAttempt() throws(ManifestFetcher.Failure) -> Int32 {
        do {
            let created = try ManifestCopy.createTemporary(in: root, file: file)
            temporary = created.name
            return created.fd
        } catch {
            throw ManifestFetcher.Failure(description: "cannot write the manifest: \(error)")
        }
    }

    package var attemptName: String { temporary ?? "" }

    package func keepAttempt(url: String, etag: String?, lastModified: String?) throws(ManifestFetcher.Failure) -> String {
        guard let name = temporary else { return ManifestCopy.path(in: root, file: file) }
        temporary = nil
        do {
            try ManifestCopy.keep(temporary: name, meta: ManifestCopy.Meta(url: url, etag: etag, lastModified: lastModified), in: root, file: file)
        } catch {
            ManifestCopy.removeTemporary(name, in: root)
            throw ManifestFetcher.Failure(description: "cannot keep the manifest: \(error)")
        }
        return ManifestCopy.path(in: root, file: file)
    }

    package func dropAttempt() {
        guard let name = temporary else { return }
        temporary = nil
        ManifestCopy.removeTemporary(name, in: root)
    }
}
