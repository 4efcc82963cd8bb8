import Testing
@testable import AssetSyncModel
@testable import AssetSyncTransfer

/// The engine's scheduling, with its transfers moved by `ScriptedMultiplexer` on a clock that only
/// its polls advance: how many run at once, retries that wait, and a stop that keeps results.
@Suite struct EngineSchedulingTests {
    /// A file of `size` bytes at `path`, its body a run of the path's first byte.
    static func body(_ path: String, _ size: Int) -> [UInt8] { Array(repeating: path.utf8.first!, count: size) }

    private func engine(
        _ files: [(path: String, size: Int)], jobs: Int, multiplexer: ScriptedMultiplexer, delegate: EngineDelegate,
        shouldStop: @escaping () -> Bool = { false }
    ) -> TransferEngine {
        var options = TransferOptions()
        options.jobs = jobs
        options.retryBaseDelay = 0.01
        options.minimumResumableSize = 0  // these tiny files keep resume records, as large ones do
        let requests = files.map {
            TransferEngine.Request(entry: ManifestEntry(path: $0.path, size: Int64($0.size), crc32: 0), action: .new, sources: [DownloadSource(url: "http://h.invalid/" + $0.path)])
        }
        // A scheduling bug that never ends the run ends it here, after ten minutes of the fake clock.
        return TransferEngine(
            requests: requests, options: options, delegate: delegate, wakeFD: -1,
            shouldStop: { shouldStop() || multiplexer.now > 600 }, clock: { multiplexer.now }, multiplexer: { _ in multiplexer })
    }

    private static func ok(_ body: [UInt8], chunk: Int = .max) -> ScriptedMultiplexer.Response {
        .init(head: ["HTTP/1.1 200 OK", "ETag: \"v1\""], body: body, chunk: chunk)
    }

    @Test("at most `jobs` transfers run at once, and a finished one makes room for the next")
    func atMostJobsAtOnce() {
        let files = (0..<10).map { (path: "f\($0)", size: 2 + 3 * $0) }
        let bodies = Dictionary(uniqueKeysWithValues: files.map { ($0.path, Self.body($0.path, $0.size)) })
        let multiplexer = ScriptedMultiplexer(responses: bodies.mapValues { [Self.ok($0, chunk: 4)] })
        let delegate = EngineDelegate(bodies: bodies)
        let engine = engine(files, jobs: 3, multiplexer: multiplexer, delegate: delegate)
        #expect(engine.run() == .finished)
        #expect(multiplexer.mostRunning == 3)
        #expect(multiplexer.starts.map(\.path) == files.map(\.path))
        #expect(Set(engine.results.map(\.path)) == Set(files.map(\.path)) && engine.results.allSatisfy { $0.outcome == .committed })
        for (path, body) in bodies { #expect(delegate.sinks[path]?.bytes == body, "\(path)") }
    }

    @Test("a retry waits for its time (Retry-After) while the other files go on")
    func retriesWaitWithoutBlocking() throws {
        let files = [(path: "a", size: 4), (path: "b", size: 4), (path: "c", size: 4)]
        let bodies = Dictionary(uniqueKeysWithValues: files.map { ($0.path, Self.body($0.path, $0.size)) })
        var responses = bodies.mapValues { [Self.ok($0)] }
        responses["a"] = [.init(head: ["HTTP/1.1 503 Busy", "Retry-After: 5"]), Self.ok(bodies["a"]!)]
        let multiplexer = ScriptedMultiplexer(responses: responses)
        let delegate = EngineDelegate(bodies: bodies)
        let engine = engine(files, jobs: 2, multiplexer: multiplexer, delegate: delegate)
        #expect(engine.run() == .finished)
        #expect(multiplexer.mostRunning == 2)
        let starts = multiplexer.starts
        #expect(starts.map(\.path) == ["a", "b", "c", "a"])
        #expect(try #require(starts.last).at >= 5)  // not before the time Retry-After asked for
        #expect(starts[2].at < 5)  // c did not wait behind a
        #expect(delegate.lines.contains("retry a after 5.0: HTTP 503"))
        #expect(engine.results.map(\.path) == ["b", "c", "a"] && engine.results.allSatisfy { $0.outcome == .committed })
    }

    @Test("a stop commits what is proven, keeps the bytes of running transfers, and reports every other file interrupted")
    func stopKeepsResults() {
        let files = [(path: "a", size: 4), (path: "b", size: 10), (path: "c", size: 4), (path: "d", size: 4)]
        let bodies = Dictionary(uniqueKeysWithValues: files.map { ($0.path, Self.body($0.path, $0.size)) })
        var responses = bodies.mapValues { [Self.ok($0)] }
        responses["b"] = [Self.ok(bodies["b"]!, chunk: 4)]
        let multiplexer = ScriptedMultiplexer(responses: responses)
        let delegate = EngineDelegate(bodies: bodies)
        var stopRequested = false
        delegate.onProven = { path in if path == "a" { stopRequested = true } }  // ^C once a is proven, while b runs
        let engine = engine(files, jobs: 2, multiplexer: multiplexer, delegate: delegate, shouldStop: { stopRequested })
        #expect(engine.run() == .interrupted)
        #expect(engine.results.map { "\($0.path) \($0.outcome)" } == ["a committed", "b interrupted", "c interrupted", "d interrupted"])
        #expect(multiplexer.starts.map(\.path) == ["a", "b"])
        let b = delegate.sinks["b"]
        #expect(b?.bytes == Array(bodies["b"]![..<4]) && b?.discarded == false)
        #expect(b?.saved?["etag"] == "\"v1\"")  // the record the next run resumes with
    }

    @Test("a transfer whose last bytes are still being written is decided once they are, while the others go on")
    func aFileStillBeingWrittenDoesNotHoldUpTheOthers() {
        let files = [(path: "a", size: 4), (path: "b", size: 40), (path: "c", size: 4)]
        let bodies = Dictionary(uniqueKeysWithValues: files.map { ($0.path, Self.body($0.path, $0.size)) })
        var responses = bodies.mapValues { [Self.ok($0)] }
        responses["b"] = [Self.ok(bodies["b"]!, chunk: 4)]
        let multiplexer = ScriptedMultiplexer(responses: responses)
        let delegate = EngineDelegate(bodies: bodies)
        delegate.writesStillUnderWay["a"] = 3
        var startedWhenAWasProven: [String] = []
        delegate.onProven = { path in if path == "a" { startedWhenAWasProven = multiplexer.starts.map(\.path) } }
        let engine = engine(files, jobs: 2, multiplexer: multiplexer, delegate: delegate)
        #expect(engine.run() == .finished)
        #expect(startedWhenAWasProven == ["a", "b", "c"])  // a's place went to c while a's bytes were written
        #expect(delegate.sinks["a"]?.provenUnwritten == false)
        #expect(engine.results.count == 3 && engine.results.allSatisfy { $0.outcome == .committed })
    }

    @Test("a transfer still being written when nothing else runs is waited for, not polled")
    func aFileStillBeingWrittenAloneIsWaitedFor() {
        let multiplexer = ScriptedMultiplexer(responses: ["a": [Self.ok(Self.body("a", 4))]])
        let delegate = EngineDelegate(bodies: ["a": Self.body("a", 4)])
        delegate.writesStillUnderWay["a"] = .max
        let engine = engine([(path: "a", size: 4)], jobs: 2, multiplexer: multiplexer, delegate: delegate)
        #expect(engine.run() == .finished)
        #expect(delegate.sinks["a"]?.provenUnwritten == false)
        #expect(engine.results.map(\.outcome) == [.committed])
    }
}
