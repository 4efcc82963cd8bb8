import CCurl
import Testing
@testable import AssetSyncModel
@testable import AssetSyncTransfer

/// A transport without a network: each file's (or document's) attempts are answered with scripted responses,
/// played one file at a time into the real `Download` decisions and the sinks the delegate opens,
/// with the engine's contract towards the delegate (proven downloads committed when idle, every
/// result told, the bytes kept on a stop).
struct FakeTransport: Transport {
    /// One response: its head's lines and its body.
    struct Response: Sendable {
        var head: [String]
        var body: [UInt8] = []

        static func ok(_ body: [UInt8], etag: String = "\"v1\"") -> Response {
            Response(head: ["HTTP/1.1 200 OK", "ETag: " + etag], body: body)
        }

        static func status(_ code: Int, _ headers: [String] = []) -> Response { Response(head: ["HTTP/1.1 \(code) X"] + headers) }
    }

    /// The responses each path's attempts get, in order.
    var responses: [String: [Response]] = [:]

    func transfer(
        _ requests: [TransferEngine.Request], options: TransferOptions, delegate: any TransferEngineDelegate, wakeFD: Int32,
        shouldStop: @escaping () -> Bool, clock: @escaping () -> Double
    ) -> (ending: TransferEngine.Ending, results: [FileResult]) {
        var results: [FileResult] = []
        let health = SourceHealth()
        let handles = CurlEasyPool()
        func finish(_ result: FileResult) {
            results.append(result)
            delegate.finished(result)
        }
        func stop(after index: Int) -> (ending: TransferEngine.Ending, results: [FileResult]) {
            for request in requests[index...] {
                finish(FileResult(path: request.entry.path, size: request.entry.size, action: request.action, outcome: .interrupted))
            }
            return (.interrupted, results)
        }
        for (index, request) in requests.enumerated() {
            if shouldStop() { return stop(after: index) }
            let path = request.entry.path
            let sink: any DownloadSink
            do {
                sink = try delegate.openSink(for: request)
            } catch {
                finish(FileResult(path: path, size: request.entry.size, action: request.action, outcome: .failed(error)))
                continue
            }
            let download = Download(
                entry: request.entry, action: request.action, sources: request.sources, kind: request.kind, health: health, sink: sink,
                options: options, handles: handles, clock: clock)
            delegate.started(path: path, size: request.entry.size, resumingAt: sink.offset, url: download.currentURL)
            download.announced = true
            download.restarted = { discarded, reason in delegate.restarted(path: path, discarded: discarded, reason: reason) }
            var script = responses[path, default: []][...]
            attempts: while true {
                guard let response = script.popFirst() else {
                    Issue.record("no response left for \(path)")
                    return stop(after: index)
                }
                let accepted = download.deliver(response.head, body: response.body)
                if shouldStop() {
                    download.suspend()
                    finish(download.result(.interrupted))
                    return stop(after: index + 1)
                }
                switch download.complete(accepted ? CURLE_OK : CURLE_WRITE_ERROR) {
                case .retry(let delay, let reason):
                    if !reason.isEmpty { delegate.retrying(path: path, reason: reason, after: delay) }
                case .proven:
                    delegate.proven(download)
                    for result in delegate.settleProven(idle: true, force: false)?.results ?? [] { finish(result) }
                    break attempts
                case .done(let result):
                    if case .failed = result.outcome { download.suspend() }
                    finish(result)
                    break attempts
                case .stopRun(let result):
                    finish(result)
                    return (.stoppedByLocalError, results)
                case .segmentDone, .oneStream:  // only the engine fetches files in segments
                    Issue.record("a segment outcome for \(path), which is not fetched in segments")
                    return stop(after: index)
                }
            }
        }
        return (.finished, results)
    }
}
