/// Where a fetched manifest goes: a fresh file for each attempt, kept only once a response
/// proved to be the manifest. The fetcher writes the bytes; the destination decides where
/// they live (in a pull, the cache's copy of the remote manifest).
package protocol ManifestDestination: AnyObject {
    /// The copy kept from an earlier fetch of `url`, whose validators make the request conditional.
    func cached(for url: String) -> CachedManifest?
    /// A fresh, empty file for one attempt's body, open for writing; the fetcher closes it.
    func openAttempt() throws(ManifestFetcher.Failure) -> Int32
    /// The attempt's file, for messages.
    var attemptName: String { get }
    /// The attempt's file (written, and made durable when `keepsDurably`) is the manifest from `url`: keeps it with
    /// its validators and returns the path it can be read at.
    func keepAttempt(url: String, etag: String?, lastModified: String?) throws(ManifestFetcher.Failure) -> String
    /// Removes what the attempt left, unless it was kept.
    func dropAttempt()
    /// Whether a kept attempt is made durable first (a copy kept for later runs); a temporary
    /// file read at once and removed need not be.
    var keepsDurably: Bool { get }
}

extension ManifestDestination {
    package var keepsDurably: Bool { true }
}

/// A manifest kept from an earlier fetch: where it is, and the validators it came with.
package struct CachedManifest: Equatable, Sendable {
    package var path: String
    package var etag: String?
    package var lastModified: String?

    package init(path: String, etag: String?, lastModified: String?) {
        self.path = path
        self.etag = etag
        self.lastModified = lastModified
    }
}
