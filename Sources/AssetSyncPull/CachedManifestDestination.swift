import AssetSyncSystem
package import AssetSyncCache
package import AssetSyncTransfer

/// A fetched manifest kept in the cache (`.assetsync/manifest`), fetched conditionally when
/// the copy there came from the same URL.
package final class CachedManifestDestination: ManifestDestination {
    private let root: CacheRoot
    /// The temporary file of the current attempt, until it is kept or dropped.
    private var temporary: String?

    package init(root: CacheRoot) { self.root = root }

    package func cached(for url: String) -> CachedManifest? {
        guard let meta = ManifestCopy.meta(in: root), meta.url == url else { return nil }
        return CachedManifest(path: ManifestCopy.path(in: root), etag: meta.etag, lastModified: meta.lastModified)
    }

    package func openAttempt() throws(ManifestFetcher.Failure) -> Int32 {
        do {
            let file = try ManifestCopy.createTemporary(in: root)
            temporary = file.name
            return file.fd
        } catch {
            throw ManifestFetcher.Failure(description: "cannot write the manifest: \(error)")
        }
    }

    package var attemptName: String { temporary ?? "" }

    package func keepAttempt(url: String, etag: String?, lastModified: String?) throws(ManifestFetcher.Failure) -> String {
        guard let name = temporary else { return ManifestCopy.path(in: root) }
        temporary = nil
        do {
            try ManifestCopy.keep(temporary: name, meta: ManifestCopy.Meta(url: url, etag: etag, lastModified: lastModified), in: root)
        } catch {
            ManifestCopy.removeTemporary(name, in: root)
            throw ManifestFetcher.Failure(description: "cannot keep the manifest: \(error)")
        }
        return ManifestCopy.path(in: root)
    }

    package func dropAttempt() {
        guard let name = temporary else { return }
        temporary = nil
        ManifestCopy.removeTemporary(name, in: root)
    }
}
