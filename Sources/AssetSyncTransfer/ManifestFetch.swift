import AssetSyncModel
import AssetSyncSystem

/// A `ManifestFetcher` fetch of one document or several as the transport's delegate: each one's
/// sink, named by its URL, and what became of each once its status proved it (kept by its
/// destination, or the copy it held kept as it is after a 304, or why not). Lives on the transfer
/// thread for the fetch.
final class ManifestFetch: TransferEngineDelegate {
    private let sinks: [String: ManifestSink]
    /// The copies held from earlier fetches, by URL, which made those requests conditional.
    private let held: [String: CachedManifest]
    private var proven: [Download] = []
    /// The documents kept, by URL.
    private(set) var kept: [String: ManifestFetcher.Fetched] = [:]
    /// Why keeping a document failed, by URL, in its destination's words.
    private(set) var keepFailures: [String: ManifestFetcher.Failure] = [:]

    init(_ documents: [ManifestFetcher.Document], held: [String: CachedManifest] = [:]) {
        sinks = Dictionary(documents.map { ($0.url, ManifestSink(into: $0.destination)) }) { first, _ in first }
        self.held = held
    }

    /// What went wrong on this side for `url` (writing or keeping its file).
    func localFailure(_ url: String) -> ManifestFetcher.Failure? { keepFailures[url] ?? sinks[url]?.failure }

    func openSink(for request: TransferEngine.Request) throws(Failure) -> any DownloadSink {
        guard let sink = sinks[request.entry.path] else { throw Failure(isLocal: true, reason: "no document is fetched from \(request.entry.path)") }
        return sink
    }

    func proven(_ download: Download) { proven.append(download) }

    var holdsProven: Bool { !proven.isEmpty }

    func settleProven(idle: Bool, force: Bool) -> (results: [FileResult], stopsTheRun: Bool)? {
        guard !proven.isEmpty else { return nil }
        let settling = proven
        proven = []
        return (settling.map { download in
            let url = download.entry.path
            if download.keepsHeldCopy, let copy = held[url] {
                kept[url] = ManifestFetcher.Fetched(path: copy.path, notModified: true)
                return download.result(.committed)
            }
            do throws(ManifestFetcher.Failure) {
                kept[url] = ManifestFetcher.Fetched(path: try sinks[url]!.keep(url: url), notModified: false)
                return download.result(.committed)
            } catch {
                keepFailures[url] = error
                return download.result(.failed(Failure(isLocal: true, reason: error.description)))
            }
        }, false)
    }

    func takeProven() -> (committed: [FileResult], uncommitted: [Download]) {
        defer { proven = [] }
        return ([], proven)
    }

    /// Counted, but never reported: a fetch's time is its caller's to tell.
    let steps = StepTimes()

    // A fetch tells nothing on its way: its caller says what became of each document.
    func started(path: String, size: Int64, resumingAt offset: Int64, url: String) {}
    func retrying(path: String, reason: String, after delay: Double) {}
    func restarted(path: String, discarded: Int64, reason: String) {}
    func finished(_ result: FileResult) {}
    func progress(_ snapshot: ProgressSnapshot) {}
}
