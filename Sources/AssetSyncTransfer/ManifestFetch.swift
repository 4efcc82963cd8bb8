import AssetSyncModel
import AssetSyncSystem

/// One `ManifestFetcher.fetch` as the transport's delegate: its one document's sink, and what
/// becomes of the document once its status proved it (kept by the destination, or the copy held
/// kept as it is after a 304). Lives on the transfer thread for the fetch.
final class ManifestFetch: TransferEngineDelegate {
    private let url: String
    private let held: CachedManifest?
    private let sink: ManifestSink
    private var proven: Download?
    /// The document, once kept.
    private(set) var fetched: ManifestFetcher.Fetched?
    /// Why keeping it failed, in the destination's words.
    private var keepFailure: ManifestFetcher.Failure?

    init(url: String, held: CachedManifest?, into destination: any ManifestDestination) {
        self.url = url
        self.held = held
        sink = ManifestSink(into: destination)
    }

    /// What went wrong on this side (writing or keeping the file), in the destination's words.
    var localFailure: ManifestFetcher.Failure? { keepFailure ?? sink.failure }

    func openSink(for request: TransferEngine.Request) throws(Failure) -> any DownloadSink { sink }

    func proven(_ download: Download) { proven = download }

    var holdsProven: Bool { proven != nil }

    func settleProven(idle: Bool, force: Bool) -> (results: [FileResult], stopsTheRun: Bool)? {
        guard let download = proven else { return nil }
        proven = nil
        if download.keepsHeldCopy, let held {
            fetched = ManifestFetcher.Fetched(path: held.path, notModified: true)
            return ([download.result(.committed)], false)
        }
        do throws(ManifestFetcher.Failure) {
            fetched = ManifestFetcher.Fetched(path: try sink.keep(url: url), notModified: false)
            return ([download.result(.committed)], false)
        } catch {
            keepFailure = error
            return ([download.result(.failed(Failure(isLocal: true, reason: error.description)))], false)
        }
    }

    func takeProven() -> (committed: [FileResult], uncommitted: [Download]) {
        defer { proven = nil }
        return ([], proven.map { [$0] } ?? [])
    }

    /// Counted, but never reported: a fetch's time is its caller's to tell.
    let steps = StepTimes()

    // A fetch tells nothing on its way: its caller says what became of it.
    func started(path: String, size: Int64, resumingAt offset: Int64, url: String) {}
    func retrying(path: String, reason: String, after delay: Double) {}
    func restarted(path: String, discarded: Int64, reason: String) {}
    func finished(_ result: FileResult) {}
    func progress(_ snapshot: ProgressSnapshot) {}
}
