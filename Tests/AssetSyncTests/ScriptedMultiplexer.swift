import CCurl
import Testing
@testable import AssetSyncModel
@testable import AssetSyncTransfer

/// Moves the engine's downloads along by a script, on a clock of its own: each `perform` gives
/// every running download its response's head and next chunk of body, finishing it once the body
/// is delivered; `poll` only lets its time pass. Records how many ran at once and when each started.
final class ScriptedMultiplexer: TransferMultiplexer {
    struct Response {
        var head: [String]
        var body: [UInt8] = []
        /// Body bytes delivered per `perform`.
        var chunk = Int.max
    }

    private struct Running {
        var download: Download
        var response: Response
        var headSent = false
        var sent = 0
        var finished = false
    }

    /// The responses each path's attempts get, in order.
    private var responses: [String: [Response]]
    /// Seconds on the multiplexer's clock, which only `poll` moves.
    private(set) var now = 0.0
    private var running: [Running] = []
    private var done: [(download: Download, result: CURLcode)] = []
    private(set) var mostRunning = 0
    /// Every start of an attempt: the path and the time.
    private(set) var starts: [(path: String, at: Double)] = []

    init(responses: [String: [Response]]) { self.responses = responses }

    func add(_ download: Download) {
        let path = download.entry.path
        guard let response = responses[path]?.first else {
            Issue.record("no response left for \(path)")
            return
        }
        responses[path]?.removeFirst()
        running.append(Running(download: download, response: response))
        mostRunning = max(mostRunning, running.count)
        starts.append((path, now))
    }

    func remove(_ download: Download) { running.removeAll { $0.download === download } }

    func perform() {
        for index in running.indices where !running[index].finished {
            let download = running[index].download
            let response = running[index].response
            if !running[index].headSent {
                download.hear(response.head)
                running[index].headSent = true
            }
            let end = response.body.count - running[index].sent > response.chunk ? running[index].sent + response.chunk : response.body.count
            let accepted = download.write(Array(response.body[running[index].sent..<end]))
            running[index].sent = end
            if !accepted || end == response.body.count {
                running[index].finished = true
                done.append((download, accepted ? CURLE_OK : CURLE_WRITE_ERROR))
            }
        }
    }

    func poll(wakeFD: Int32, timeout: Int32) { now += Double(timeout) / 1000 }

    func nextFinished() -> (download: Download, result: CURLcode)? { done.isEmpty ? nil : done.removeFirst() }
}
