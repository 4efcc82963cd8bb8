@testable import AssetSyncModel
import AssetSyncSystem
@testable import AssetSyncTransfer

/// The engine's delegate in unit tests: sinks in memory, proven downloads committed in one
/// group when nothing else runs (or when forced), and every event as a line.
final class EngineDelegate: TransferEngineDelegate {
    private let bodies: [String: [UInt8]]
    private(set) var sinks: [String: MemorySink] = [:]
    private var ready: [Download] = []
    private(set) var lines: [String] = []
    /// Told each download handed over as proven.
    var onProven: (String) -> Void = { _ in }
    /// For each path, how many times its sink says its last bytes are still being written.
    var writesStillUnderWay: [String: Int] = [:]

    /// A sink prepared for a request (one holding bytes to resume), used instead of a fresh one.
    var preparedSink: ((TransferEngine.Request) -> MemorySink?)?

    init(bodies: [String: [UInt8]]) { self.bodies = bodies }

    func openSink(for request: TransferEngine.Request) throws(Failure) -> any DownloadSink {
        if let prepared = preparedSink?(request) { return prepared }
        let sink = MemorySink(expected: bodies[request.entry.path] ?? [])
        sink.writesStillUnderWay = writesStillUnderWay[request.entry.path] ?? 0
        sinks[request.entry.path] = sink
        return sink
    }

    func proven(_ download: Download) {
        ready.append(download)
        onProven(download.entry.path)
    }

    var holdsProven: Bool { !ready.isEmpty }

    func settleProven(idle: Bool, force: Bool) -> (results: [FileResult], stopsTheRun: Bool)? {
        guard !ready.isEmpty, idle || force else { return nil }
        defer { ready = [] }
        return (ready.map { $0.result(.committed) }, false)
    }

    func takeProven() -> (committed: [FileResult], uncommitted: [Download]) {
        defer { ready = [] }
        return ([], ready)
    }

    let steps = StepTimes()

    func started(path: String, size: Int64, resumingAt offset: Int64, url: String) { lines.append("started \(path)") }

    func retrying(path: String, reason: String, after delay: Double) { lines.append("retry \(path) after \(delay): \(reason)") }

    func restarted(path: String, discarded: Int64, reason: String) { lines.append("restarted \(path)") }

    func finished(_ result: FileResult) { lines.append("finished \(result.path): \(result.outcome)") }

    func progress(_ snapshot: ProgressSnapshot) {}
}
