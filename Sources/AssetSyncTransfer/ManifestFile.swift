import AssetSyncSystem
import Glibc

/// A fetched manifest written to one file at `path`, truncated for each attempt; nothing
/// is cached, so no request is conditional.
package final class ManifestFile: ManifestDestination {
    private let path: String

    package init(path: String) { self.path = path }

    package func cached(for url: String) -> CachedManifest? { nil }

    package func openAttempt() throws(ManifestFetcher.Failure) -> Int32 {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw ManifestFetcher.Failure(description: "cannot write \(path): \(SystemError("open").reason)") }
        return fd
    }

    package var attemptName: String { path }

    package func keepAttempt(url: String, etag: String?, lastModified: String?) throws(ManifestFetcher.Failure) -> String { path }

    package func dropAttempt() {}

    /// A temporary file, read at once and removed: no crash can leave it for a later run to trust.
    package var keepsDurably: Bool { false }
}
