import AssetSyncModel

/// The sources found bad during one run: one table per `TransferEngine`, read and written on
/// the transfer thread only. A source is marked when it served bytes that failed the CRC check,
/// answered with the wrong size, or kept failing (its retries for a file exhausted, or a final
/// connection error); later files skip it. A 404 or another final answer about one file marks
/// nothing: a mirror lacking one file still serves the others.
///
/// Keyed by `DownloadSource.origin`: for a URL relative to the manifest's base or a mirror base,
/// that base; for any other absolute URL, its scheme, host and port. A base is the unit a
/// manifest names and an operator runs (two bases on one host can be two caches, one of them
/// stale), while a URL no base names is all that is known of its server: a refused connection,
/// a bad certificate or corrupt bytes there say as much about the host's other URLs.
final class SourceHealth {
    /// Why each bad source was marked: the first failure seen there.
    private var bad: [String: String] = [:]

    init() {}

    func isBad(_ source: DownloadSource) -> Bool { bad[source.origin] != nil }

    /// Why `source` was marked bad, if it was.
    func reason(_ source: DownloadSource) -> String? { bad[source.origin] }

    func markBad(_ source: DownloadSource, reason: String) {
        if bad[source.origin] == nil { bad[source.origin] = "\(source.url): \(reason)" }
    }
}
