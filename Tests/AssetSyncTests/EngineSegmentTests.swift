import Testing
@testable import AssetSyncModel
@testable import AssetSyncTransfer
import AssetSyncSystem

/// A segmented download in the engine: a large file as segments moved by `ScriptedMultiplexer`, each a
/// download that counts against `jobs`, while the delegate hears of one file.
@Suite struct EngineSegmentTests {
    /// 16 bytes with a different value in each, so that a byte in the wrong place shows.
    static let big = (0..<16).map { UInt8($0 + 1) }

    /// The delegate of `EngineDelegate`, with the big file's sink able to take segments.
    final class SegmentingDelegate: TransferEngineDelegate {
        let inner: EngineDelegate
        let file = MemorySegmentedSink(expected: EngineSegmentTests.big)
        private(set) var progress: [ProgressSnapshot] = []

        init(bodies: [String: [UInt8]]) { inner = EngineDelegate(bodies: bodies) }

        func openSink(for request: TransferEngine.Request) throws(Failure) -> any DownloadSink {
            request.entry.path == "big" ? file : try inner.openSink(for: request)
        }
        func proven(_ download: Download) { inner.proven(download) }
        var holdsProven: Bool { inner.holdsProven }
        func settleProven(idle: Bool, force: Bool) -> (results: [FileResult], stopsTheRun: Bool)? {
            inner.settleProven(idle: idle, force: force)
        }
        func takeProven() -> (committed: [FileResult], uncommitted: [Download]) { inner.takeProven() }
        var steps: StepTimes { inner.steps }
        func started(path: String, size: Int64, resumingAt offset: Int64, url: String) {
            inner.started(path: path, size: size, resumingAt: offset, url: url)
        }
        func retrying(path: String, reason: String, after delay: Double) { inner.retrying(path: path, reason: reason, after: delay) }
        func restarted(path: String, discarded: Int64, reason: String) { inner.restarted(path: path, discarded: discarded, reason: reason) }
        func finished(_ result: FileResult) { inner.finished(result) }
        func progress(_ snapshot: ProgressSnapshot) { progress.append(snapshot) }
    }

    private func engine(
        _ files: [(path: String, size: Int)], jobs: Int, multiplexer: ScriptedMultiplexer, delegate: SegmentingDelegate,
        mirrors: [String] = []
    ) -> TransferEngine {
        var options = TransferOptions()
        options.jobs = jobs
        options.retryBaseDelay = 0.01
        options.segmentThreshold = 4
        options.segments = 4
        let requests = files.map { file in
            TransferEngine.Request(
                entry: ManifestEntry(path: file.path, size: Int64(file.size), crc32: 0), action: .new,
                sources: (["http://h.invalid/"] + mirrors).map { DownloadSource(url: $0 + file.path) })
        }
        return TransferEngine(
            requests: requests, options: options, delegate: delegate, wakeFD: -1,
            shouldStop: { multiplexer.now > 600 }, clock: { multiplexer.now }, multiplexer: { _ in multiplexer })
    }

    /// A 206 for `range` of the big file, one byte per step.
    static func part(_ range: Range<Int>, etag: String = "\"v1\"") -> ScriptedMultiplexer.Response {
        .init(
            head: ["HTTP/1.1 206 Partial Content", "ETag: \(etag)", "Content-Range: bytes \(range.lowerBound)-\(range.upperBound - 1)/16"],
            body: Array(big[range]), chunk: 1)
    }

    @Test("a file above the threshold runs as four segments counted against jobs; started, summed and finished once")
    func segmentsCountAsJobsAndReportAsOneFile() {
        let small = ["s1": [UInt8](repeating: 7, count: 3), "s2": [UInt8](repeating: 8, count: 3)]
        let multiplexer = ScriptedMultiplexer(responses: [
            "big": [Self.part(0..<4), Self.part(4..<8), Self.part(8..<12), Self.part(12..<16)],
            "s1": [.init(head: ["HTTP/1.1 200 OK", "ETag: \"a\""], body: small["s1"]!, chunk: 1)],
            "s2": [.init(head: ["HTTP/1.1 200 OK", "ETag: \"b\""], body: small["s2"]!, chunk: 1)],
        ])
        let delegate = SegmentingDelegate(bodies: small)
        let engine = engine([("big", 16), ("s1", 3), ("s2", 3)], jobs: 4, multiplexer: multiplexer, delegate: delegate)
        #expect(engine.run() == .finished)
        #expect(multiplexer.mostRunning == 4)  // the segments took the jobs, never more
        #expect(delegate.file.bytes == Self.big)
        #expect(engine.results.map(\.outcome) == [.committed, .committed, .committed])
        #expect(engine.results.first { $0.path == "big" }.map { ($0.attempts, $0.transferred) } ?? (0, 0) == (1, 16))
        let lines = delegate.inner.lines
        #expect(lines.filter { $0.hasSuffix(" big") || $0.contains(" big:") } == ["started big", "finished big: committed"])
        // Progress shows the big file once, with the bytes of all its segments.
        #expect(delegate.progress.allSatisfy { snapshot in snapshot.transfers.filter { $0.path == "big" }.count <= 1 })
        #expect(delegate.progress.contains { $0.transfers.contains { $0.path == "big" && $0.done > 4 } })
    }

    @Test("a 200, a wrong Content-Range, a 416 or multipart/byteranges to the first segment makes the file one stream, asked for once more without Range",
          arguments: [
              (["HTTP/1.1 200 OK", "ETag: \"v1\""], "the server ignores Range", Self.big),
              (["HTTP/1.1 206 Partial Content", "ETag: \"v1\"", "Content-Range: bytes 1-4/16"],
               "a range was answered with Content-Range bytes 1-4/16", Array(Self.big[1..<5])),
              (["HTTP/1.1 416 Range Not Satisfiable", "Content-Range: bytes */15"], "HTTP 416 (range not satisfiable)", Array(Self.big[1..<5])),
              (["HTTP/1.1 206 Partial Content", "ETag: \"v1\"", "Content-Type: multipart/byteranges; boundary=B"],
               "a range was answered with multipart/byteranges", Array(Self.big[1..<5])),
          ])
    func unusableRangeAnswerMakesOneStream(_ head: [String], _ words: String, _ firstBody: [UInt8]) {
        let multiplexer = ScriptedMultiplexer(responses: [
            "big": [
                .init(head: head, body: firstBody, chunk: 1),
                .init(head: ["HTTP/1.1 200 OK", "ETag: \"v1\""], body: Self.big, chunk: 4),
            ],
        ])
        let delegate = SegmentingDelegate(bodies: [:])
        let engine = engine([("big", 16)], jobs: 8, multiplexer: multiplexer, delegate: delegate)
        #expect(engine.run() == .finished)
        #expect(multiplexer.starts.count == 2 && multiplexer.mostRunning == 1)
        #expect(delegate.file.bytes == Self.big && engine.results.map(\.outcome) == [.committed])
        #expect(delegate.inner.lines == [
            "started big", "retry big after 0.0: \(words); downloading as one stream", "finished big: committed",
        ])
    }

    @Test("a segment whose response is cut is retried alone; the retry budget is the file's")
    func cutSegmentIsRetriedAlone() {
        var cut = Self.part(8..<12)
        cut.body = Array(cut.body.prefix(2))  // the connection closes after two bytes
        let multiplexer = ScriptedMultiplexer(responses: [
            "big": [Self.part(0..<4), Self.part(4..<8), cut, Self.part(12..<16), Self.part(10..<12)],
        ])
        let delegate = SegmentingDelegate(bodies: [:])
        let engine = engine([("big", 16)], jobs: 8, multiplexer: multiplexer, delegate: delegate)
        #expect(engine.run() == .finished)
        #expect(multiplexer.starts.count == 5)
        #expect(delegate.file.bytes == Self.big && engine.results.map(\.outcome) == [.committed])
        #expect(engine.results.first?.attempts == 2)
        #expect(delegate.inner.lines.contains { $0.hasPrefix("retry big after ") && $0.hasSuffix("the server closed the response after 2 of 4 bytes") })
    }

    @Test("a full disk under one segment stops the run: the file fails once, the others keep their bytes in the record")
    func fullDiskInASegmentFailsTheFileOnce() {
        let multiplexer = ScriptedMultiplexer(responses: [
            "big": [Self.part(0..<4), Self.part(4..<8), Self.part(8..<12), Self.part(12..<16)],
        ])
        let delegate = SegmentingDelegate(bodies: [:])
        delegate.file.fullDiskAt = 13
        let engine = engine([("big", 16)], jobs: 8, multiplexer: multiplexer, delegate: delegate)
        #expect(engine.run() == .stoppedByLocalError)
        #expect(delegate.inner.lines.filter { $0.hasPrefix("finished") }.count == 1)
        #expect(engine.results.count == 1)
        // The record names each segment's bytes, the failed one's included.
        let segments = delegate.file.saved?["segments"] ?? ""
        #expect(segments.hasPrefix("0-4+") && segments.contains(",12-16+1"), "\(segments)")
    }

    @Test("a segment naming another version than the first makes the file one stream from zero")
    func versionChangeMakesOneStream() {
        let multiplexer = ScriptedMultiplexer(responses: [
            "big": [
                Self.part(0..<4), Self.part(4..<8, etag: "\"v2\""), Self.part(8..<12), Self.part(12..<16),
                .init(head: ["HTTP/1.1 200 OK", "ETag: \"v2\""], body: Self.big, chunk: 4),
            ],
        ])
        let delegate = SegmentingDelegate(bodies: [:])
        let engine = engine([("big", 16)], jobs: 8, multiplexer: multiplexer, delegate: delegate)
        #expect(engine.run() == .finished)
        #expect(delegate.file.bytes == Self.big && engine.results.map(\.outcome) == [.committed])
        #expect(delegate.inner.lines.contains(
            "retry big after 0.0: the file changed on the server between its segments; downloading as one stream"))
        #expect(delegate.inner.lines.filter { $0.hasPrefix("finished") } == ["finished big: committed"])
    }

    @Test("segments whose joined CRC fails make the file one stream from the next source, and mark theirs bad")
    func corruptSegmentsMoveToTheMirror() {
        var corrupt = Self.part(8..<12)
        corrupt.body[1] ^= 0xFF  // the right size, the wrong bytes
        let multiplexer = ScriptedMultiplexer(responses: [
            "big": [
                Self.part(0..<4), Self.part(4..<8), corrupt, Self.part(12..<16),
                .init(head: ["HTTP/1.1 200 OK", "ETag: \"v1\""], body: Self.big, chunk: 4),
            ],
        ])
        let delegate = SegmentingDelegate(bodies: [:])
        let engine = engine([("big", 16)], jobs: 8, multiplexer: multiplexer, delegate: delegate, mirrors: ["http://m.invalid/"])
        #expect(engine.run() == .finished)
        #expect(delegate.file.bytes == Self.big && engine.results.map(\.outcome) == [.committed])
        #expect(engine.results.first?.source?.url == "http://m.invalid/big" && engine.results.first?.isFromMirror == true)
        #expect(multiplexer.starts.count == 5)
    }
}
