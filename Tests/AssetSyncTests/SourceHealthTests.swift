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
            options: options, handles: CurlEasyPool(), clock: { 0 })
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

    @Test("a failure after several sources names each one with what it answered: one marked bad is asked last, not skipped")
    func failureListsEverySource() {
        let health = SourceHealth()
        health.markBad(Self.mirror, reason: "CRC-32 mismatch")
        let failing = download(health, sources: [Self.primary, Self.mirror, Self.third])
        #expect(failing.play(["HTTP/1.1 404 Not Found"]).summary == "retry: HTTP 404; trying mirror 2")
        #expect(failing.play(["HTTP/1.1 410 Gone"]).summary == "retry: HTTP 410; trying mirror 1")
        #expect(failing.currentURL == Self.mirror.url)
        guard case .done(let result) = failing.play(["HTTP/1.1 404 Not Found"]), case .failed(let failure) = result.outcome else {
            Issue.record("the file did not fail")
            return
        }
        #expect(failure.sources == [
            SourceFailure(url: Self.primary.url, reason: "HTTP 404"),
            SourceFailure(url: Self.mirror.url, reason: "HTTP 404"),
            SourceFailure(url: Self.third.url, reason: "HTTP 410"),
        ])
        #expect(failure.url == Self.mirror.url && result.source == nil)
    }

    @Test("a source marked bad is put off, and serves the file when the others fail")
    func markedSourceIsAskedLast() {
        let health = SourceHealth()
        health.markBad(Self.primary, reason: "HTTP 503 (2 attempts)")
        let later = download(health, sources: [Self.primary, Self.mirror, Self.third])
        #expect(later.currentURL == Self.mirror.url)
        #expect(later.play(["HTTP/1.1 404 Not Found"]).summary == "retry: HTTP 404; trying mirror 2")
        #expect(later.play(["HTTP/1.1 404 Not Found"]).summary == "retry: HTTP 404; trying the primary URL")
        #expect(later.play(["HTTP/1.1 200 OK"], body: Self.file).summary == "proven")
        #expect(later.result(.committed).source == Self.primary)
    }

    /// What one mark covers: a URL no base names is its own source (another path on its host may be
    /// another server behind it); a base covers every URL under it, and nothing beside it; only a
    /// server that cannot be reached marks its scheme, host and port.
    @Test("a mark covers the URL or the base that failed; only a connection-level failure covers the host")
    func whatAMarkCovers() {
        let url = DownloadSource(url: "http://h.invalid/p/f.bin")
        let samePath = DownloadSource(url: "HTTP://H.invalid:80/p/./f.bin")
        let otherPath = DownloadSource(url: "http://h.invalid/bad/f.bin")
        let health = SourceHealth()
        health.markBad(url, reason: "HTTP 500 (2 attempts)")
        #expect(health.isBad(url) && health.isBad(samePath))
        #expect(!health.isBad(otherPath))
        #expect(health.reason(samePath) == "http://h.invalid/p/f.bin: HTTP 500 (2 attempts)")

        let base = DownloadSource(url: "http://b.invalid/game/a.bin", origin: "http://b.invalid/game/")
        let underBase = DownloadSource(url: "http://b.invalid/game/x/b.bin", origin: "http://b.invalid/game/")
        let otherBase = DownloadSource(url: "http://b.invalid/other/a.bin", origin: "http://b.invalid/other/")
        health.markBad(base, reason: "CRC-32 mismatch")
        #expect(health.isBad(underBase) && !health.isBad(otherBase))
        #expect(!health.isBad(DownloadSource(url: "http://b.invalid/game/a.bin/x")))  // no base names it

        let refused = DownloadSource(url: "http://r.invalid:8080/a/f.bin")
        health.markBad(refused, reason: "Couldn't connect to server", scope: .host)
        #expect(health.isBad(DownloadSource(url: "http://R.invalid:8080/elsewhere/g.bin")))
        #expect(health.isBad(DownloadSource(url: "http://r.invalid:8080/m/f.bin", origin: "http://r.invalid:8080/m/")))
        #expect(!health.isBad(DownloadSource(url: "http://r.invalid:8081/a/f.bin")))
        #expect(!health.isBad(DownloadSource(url: "https://r.invalid:8080/a/f.bin")))

        // After a redirect, the host that could not be reached is the one asked.
        let redirected = DownloadSource(url: "http://front.invalid/f.bin")
        health.markBad(redirected, reason: "Couldn't connect to server", scope: .host, at: "http://back.invalid/f.bin")
        #expect(health.isBad(redirected) && health.isBad(DownloadSource(url: "http://back.invalid/g.bin")))
        #expect(!health.isBad(DownloadSource(url: "http://front.invalid/g.bin")))
    }

    @Test("a 5xx at one URL leaves the other paths on its host to be tried: a corrupt one, then the right one")
    func otherPathsOnTheSameHost() {
        let sources = ["http://h.invalid/p/f.bin", "http://h.invalid/bad/f.bin", "http://h.invalid/good/f.bin"].map {
            DownloadSource(url: $0)
        }
        let health = SourceHealth()
        let sink = MemorySink(expected: Self.file)
        let first = download(health, sources: sources, sink: sink)
        #expect(first.play(["HTTP/1.1 500 Internal Server Error"]).summary == "retry: HTTP 500")
        #expect(first.play(["HTTP/1.1 500 Internal Server Error"]).summary == "retry: HTTP 500; trying mirror 1")
        #expect(first.play(["HTTP/1.1 200 OK"], body: Self.wrong).summary
            == "retry: CRC-32 mismatch; downloading again from zero from mirror 2")
        #expect(first.play(["HTTP/1.1 200 OK"], body: Self.file).summary == "proven")
        #expect(first.result(.committed).source == sources[2])
        #expect(health.isBad(sources[0]) && health.isBad(sources[1]) && !health.isBad(sources[2]))
        // A later file starts where nothing failed.
        #expect(download(health, sources: sources).currentURL == sources[2].url)
    }

    @Test("a server that refuses connections marks its host: a later file puts off every source there")
    func refusedConnectionMarksTheHost() {
        let down = [DownloadSource(url: "http://down.invalid/a.bin"), DownloadSource(url: "http://down.invalid/m/a.bin")]
        let health = SourceHealth()
        let first = download(health, sources: down + [Self.third])
        #expect(first.play([], code: CURLE_COULDNT_CONNECT).summary.hasSuffix("; trying mirror 2"))
        #expect(health.reason(down[1])?.hasPrefix("http://down.invalid/a.bin: ") == true)
        let later = download(health, sources: [DownloadSource(url: "http://down.invalid/b.bin"), Self.third])
        #expect(later.currentURL == Self.third.url)
    }
}
