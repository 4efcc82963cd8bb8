import CCurl
import Testing
@testable import AssetSyncModel
@testable import AssetSyncTransfer

/// Which failures mark a source bad for the rest of the run, how later files skip it, and the
/// failure that lists every source; decided without a network by playing responses into `Download`.
@Suite struct SourceHealthTests {
    static let file = Array("0123456789".utf8)
    static let wrong = Array("9876543210".utf8)
    static let primary = DownloadSource(url: "http://origin.invalid/game/a.bin", origin: "http://origin.invalid/game/")
    static let mirror = DownloadSource(url: "http://mirror.invalid/game/a.bin", origin: "http://mirror.invalid/game/")
    static let third = DownloadSource(url: "http://third.invalid/a.bin")

    private func download(
        _ health: SourceHealth, sources: [DownloadSource] = [primary, mirror], sink: MemorySink = MemorySink(expected: file)
    ) -> Download {
        var options = TransferOptions()
        options.retries = 1
        options.retryBaseDelay = 0.01
        return Download(
            entry: ManifestEntry(path: "a.bin", size: 10, crc32: 0), action: .new, sources: sources, health: health, sink: sink,
            options: options, clock: { 0 })
    }

    @Test("corrupt bytes move on to the next source, which serves the file; later files skip the corrupt one")
    func mismatchMovesOnAndMarks() {
        let health = SourceHealth()
        let sink = MemorySink(expected: Self.file)
        let first = download(health, sink: sink)
        #expect(first.play(["HTTP/1.1 200 OK"], body: Self.wrong).summary
            == "retry: CRC-32 mismatch; downloading again from zero from mirror 1")
        #expect(first.currentURL == Self.mirror.url && sink.bytes.isEmpty)
        #expect(first.play(["HTTP/1.1 200 OK"], body: Self.file).summary == "proven")
        let result = first.result(.committed)
        #expect(result.source == Self.mirror && result.isFromMirror)
        #expect(health.isBad(Self.primary) && !health.isBad(Self.mirror))
        #expect(download(health).currentURL == Self.mirror.url)
    }

    @Test("a mismatch over bytes kept from before this run blames no source")
    func mismatchOverKeptBytesMarksNothing() {
        let health = SourceHealth()
        let sink = MemorySink(expected: Self.file, holding: Array(Self.wrong[..<4]), resumeFields: ["url": Self.primary.url, "etag": "\"v1\""])
        let resumed = download(health, sink: sink)
        let next = resumed.play(["HTTP/1.1 206 Partial Content", "Content-Range: bytes 4-9/10"], body: Array(Self.file[4...]))
        #expect(next.summary == "retry: CRC-32 mismatch; downloading again from zero from mirror 1")
        #expect(!health.isBad(Self.primary))
    }

    @Test("a 404 fails the file at that source without marking it; retries spent, a wrong length or a final error mark it")
    func whatMarks() {
        let notFound = SourceHealth()
        #expect(download(notFound).play(["HTTP/1.1 404 Not Found"]).summary == "retry: HTTP 404; trying mirror 1")
        #expect(!notFound.isBad(Self.primary))

        let busy = SourceHealth()
        let retried = download(busy)
        #expect(retried.play(["HTTP/1.1 503 Busy"]).summary == "retry: HTTP 503")
        #expect(retried.play(["HTTP/1.1 503 Busy"]).summary == "retry: HTTP 503; trying mirror 1")
        #expect(busy.reason(Self.primary) == "\(Self.primary.url): HTTP 503 (2 attempts)")

        let short = SourceHealth()
        #expect(download(short).play(["HTTP/1.1 200 OK", "Content-Length: 9"]).summary
            == "retry: the server announced 9 bytes, not the manifest's 10; trying mirror 1")
        #expect(short.isBad(Self.primary))

        let refused = SourceHealth()
        #expect(download(refused).play([], code: CURLE_PEER_FAILED_VERIFICATION).summary.hasSuffix("; trying mirror 1"))
        #expect(refused.isBad(Self.primary))
    }

    @Test("a file whose every source is marked bad asks them all anyway, in order")
    func everySourceBad() {
        let health = SourceHealth()
        health.markBad(Self.primary, reason: "CRC-32 mismatch")
        health.markBad(Self.mirror, reason: "CRC-32 mismatch")
        let anyway = download(health)
        #expect(anyway.currentURL == Self.primary.url)
        #expect(anyway.play(["HTTP/1.1 404 Not Found"]).summary == "retry: HTTP 404; trying mirror 1")
    }

    @Test("a failure after several sources names each one: what it answered, or why it was not asked")
    func failureListsEverySource() {
        let health = SourceHealth()
        health.markBad(Self.mirror, reason: "CRC-32 mismatch")
        let failing = download(health, sources: [Self.primary, Self.mirror, Self.third])
        #expect(failing.play(["HTTP/1.1 404 Not Found"]).summary == "retry: HTTP 404; trying mirror 2")
        guard case .done(let result) = failing.play(["HTTP/1.1 410 Gone"]), case .failed(let failure) = result.outcome else {
            Issue.record("the file did not fail")
            return
        }
        #expect(failure.sources == [
            SourceFailure(url: Self.primary.url, reason: "HTTP 404"),
            SourceFailure(
                url: Self.mirror.url, reason: "not asked: marked bad earlier in this run (\(Self.mirror.url): CRC-32 mismatch)"),
            SourceFailure(url: Self.third.url, reason: "HTTP 410"),
        ])
        #expect(failure.url == Self.third.url && result.source == nil)
    }
}
