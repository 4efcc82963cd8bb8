import CCurl
import Testing
@testable import AssetSyncModel
@testable import AssetSyncTransfer

/// What a download does after each response: the status, Content-Range, curl code and bytes
/// received, decided without a network by playing responses into `Download`.
@Suite struct DownloadDecisionTests {
    static let file = Array("0123456789".utf8)
    static let entry = ManifestEntry(path: "a.bin", size: 10, crc32: 0)
    static let url = "http://origin.invalid/a.bin"
    static let mirror = "http://mirror.invalid/a.bin"
    static let record = ["url": url, "etag": "\"v1\""]

    private func download(
        _ sink: MemorySink, urls: [String] = [url], retries: Int = 5, baseDelay: Double = 1,
        minimumResumableSize: Int64 = 0, health: SourceHealth = SourceHealth()
    ) -> Download {
        var options = TransferOptions()
        options.retries = retries
        options.retryBaseDelay = baseDelay
        options.minimumResumableSize = minimumResumableSize  // the 10-byte file keeps a record unless a test says otherwise
        return Download(
            entry: Self.entry, action: .new, sources: urls.map { DownloadSource(url: $0) }, health: health, sink: sink, options: options,
            handles: CurlEasyPool(), clock: { 0 })
    }

    /// A sink holding the first four bytes of a version with a strong ETag.
    private func resumedSink() -> MemorySink {
        MemorySink(expected: Self.file, holding: Array(Self.file[..<4]), resumeFields: Self.record)
    }

    @Test("a 200 with the whole body is proven, and its validators are kept for a resume")
    func wholeBody() {
        let sink = MemorySink(expected: Self.file)
        let next = download(sink).play(["HTTP/1.1 200 OK", "ETag: \"v2\""], body: Self.file)
        #expect(next.summary == "proven")
        #expect(sink.saved == ["url": Self.url, "etag": "\"v2\""])
    }

    @Test("a 206 at the offset asked for continues the bytes kept")
    func rangeAtTheRightOffset() {
        let sink = resumedSink()
        let next = download(sink).play(["HTTP/1.1 206 Partial Content", "Content-Range: bytes 4-9/10"], body: Array(Self.file[4...]))
        #expect(next.summary == "proven")
        #expect(sink.bytes == Self.file)
        #expect(sink.saved == Self.record)  // a 206 without validators continues the version recorded
    }

    @Test("a 206 at another offset, of another size or without Content-Range restarts from zero and retries")
    func rangeAtTheWrongOffset() {
        for range in ["bytes 0-9/10", "bytes 4-9/11", "bytes 4-10/10", nil] {
            let sink = resumedSink()
            let head = ["HTTP/1.1 206 Partial Content"] + (range.map { ["Content-Range: " + $0] } ?? [])
            let next = download(sink).play(head, body: Array(Self.file[4...]))
            #expect(next.summary == "retry: a resume was answered with Content-Range \(range ?? "(none)"); restarting from zero")
            #expect(sink.bytes.isEmpty)
        }
    }

    @Test("a resume answered with multipart/byteranges restarts from zero and retries: the parts are not the file's bytes")
    func multipartAnswerToAResume() {
        let sink = resumedSink()
        let head = ["HTTP/1.1 206 Partial Content", "Content-Type: multipart/byteranges; boundary=B", "Content-Range: bytes 4-9/10"]
        let next = download(sink).play(head, body: Array("--B\r\n".utf8))
        #expect(next.summary == "retry: a resume was answered with multipart/byteranges; restarting from zero")
        #expect(sink.bytes.isEmpty)
    }

    @Test("a 206 of another version (a server that ignores If-Range, as moto does) restarts from zero: bytes are never spliced")
    func rangeOfAnotherVersion() {
        for validator in ["ETag: \"v2\"", "ETag: \"v1-2\""] {
            let sink = resumedSink()
            let next = download(sink).play(
                ["HTTP/1.1 206 Partial Content", "Content-Range: bytes 4-9/10", validator], body: Array(Self.file[4...]))
            let answered = validator.dropFirst("ETag: ".count)
            #expect(next.summary
                == "retry: a resume of version \"v1\" was answered with version \(answered) (the server ignores If-Range); restarting from zero")
            #expect(sink.bytes.isEmpty)
        }
        let sink = resumedSink()
        let same = download(sink).play(
            ["HTTP/1.1 206 Partial Content", "Content-Range: bytes 4-9/10", "ETag: \"v1\""], body: Array(Self.file[4...]))
        #expect(same.summary == "proven")
        #expect(sink.bytes == Self.file)
    }

    @Test("a 200 to a resume drops the bytes kept, says so, and takes the whole body")
    func wholeFileAnsweringAResume() {
        let sink = resumedSink()
        let download = download(sink)
        var told: [String] = []
        download.restarted = { discarded, reason in told.append("\(discarded): \(reason)") }
        #expect(download.play(["HTTP/1.1 200 OK"], body: Self.file).summary == "proven")
        #expect(sink.bytes == Self.file)
        #expect(told == ["4: the server sent the whole file, not the range asked for"])
    }

    @Test("kept bytes without a validator to send in If-Range are dropped before the request")
    func resumeWithoutValidator() {
        let sink = MemorySink(expected: Self.file, holding: [1, 2], resumeFields: ["url": Self.url, "etag": "W/\"weak\""])
        #expect(download(sink).play(["HTTP/1.1 200 OK"], body: Self.file).summary == "proven")
        #expect(sink.bytes == Self.file)
    }

    @Test("416 restarts from zero and retries")
    func rangeNotSatisfiable() {
        let sink = resumedSink()
        let next = download(sink).play(["HTTP/1.1 416 Range Not Satisfiable"])
        #expect(next.summary == "retry: HTTP 416 (range not satisfiable); restarting from zero")
        #expect(sink.bytes.isEmpty)
    }

    @Test("404 is final: the file fails with the status and URL, and its body is not written")
    func notFoundIsFinal() {
        let sink = MemorySink(expected: Self.file)
        let download = download(sink)
        let next = download.play(["HTTP/1.1 404 Not Found"], body: Array("<html>".utf8))
        let failure = Failure(isLocal: false, reason: "HTTP 404", httpStatus: 404, url: Self.url)
        #expect(next.summary == "done: \(FileResult.Outcome.failed(failure))")
        #expect(download.attempts == 1 && sink.bytes.isEmpty)
    }

    @Test("404 goes on with the next mirror at once")
    func notFoundTriesTheMirror() {
        let download = download(MemorySink(expected: Self.file), urls: [Self.url, Self.mirror])
        let next = download.play(["HTTP/1.1 404 Not Found"])
        #expect(next.summary == "retry: HTTP 404; trying mirror 1" && next.delay == 0)
        #expect(download.currentURL == Self.mirror)
        #expect(download.play(["HTTP/1.1 200 OK"], body: Self.file).summary == "proven")
    }

    @Test("408, 429 and 5xx are retried after a backoff that doubles within its jitter", arguments: [408, 429, 500, 503])
    func transientStatusesBackOff(status: Int) throws {
        let download = download(MemorySink(expected: Self.file), baseDelay: 2)
        for (retry, bounds) in [(1, 1.0...2.0), (2, 2.0...4.0), (3, 4.0...8.0)] {
            let next = download.play(["HTTP/1.1 \(status) Busy"])
            #expect(next.summary == "retry: HTTP \(status)", "retry \(retry)")
            #expect(bounds.contains(try #require(next.delay)), "retry \(retry)")
        }
    }

    @Test("Retry-After (delta seconds) is honoured, up to five maximum delays; a date is ignored")
    func retryAfterIsHonoured() throws {
        let download = download(MemorySink(expected: Self.file), baseDelay: 0.01)
        #expect(download.play(["HTTP/1.1 503 Busy", "Retry-After: 7"]).delay == 7)
        #expect(download.play(["HTTP/1.1 429 Slow down", "Retry-After: 100000"]).delay == 300)  // 5 × 60 s
        let dated = try #require(download.play(["HTTP/1.1 503 Busy", "Retry-After: Wed, 21 Oct 2037 07:28:00 GMT"]).delay)
        #expect(dated <= 0.04)
    }

    @Test("when the retries are spent the next mirror is tried, with retries of its own; then the file fails")
    func retriesExhaustedThenMirror() {
        let download = download(MemorySink(expected: Self.file), urls: [Self.url, Self.mirror], retries: 2, baseDelay: 0.01)
        let busy = ["HTTP/1.1 503 Service Unavailable"]
        #expect(download.play(busy).summary == "retry: HTTP 503")
        #expect(download.play(busy).summary == "retry: HTTP 503")
        #expect(download.play(busy).summary == "retry: HTTP 503; trying mirror 1")
        #expect(download.currentURL == Self.mirror)
        #expect(download.play(busy).summary == "retry: HTTP 503")
        #expect(download.play(busy).summary == "retry: HTTP 503")
        let failure = Failure(
            isLocal: false, reason: "HTTP 503", httpStatus: 503, url: Self.mirror,
            sources: [.init(url: Self.url, reason: "HTTP 503 (3 attempts)"), .init(url: Self.mirror, reason: "HTTP 503 (3 attempts)")])
        #expect(download.play(busy).summary == "done: \(FileResult.Outcome.failed(failure))")
        #expect(download.attempts == 6)
    }

    @Test("a CRC mismatch downloads once more from zero; a second one fails the file and drops the bytes")
    func checksumMismatch() {
        let sink = MemorySink(expected: Self.file)
        let download = download(sink)
        let wrong = Array("9876543210".utf8)
        let first = download.play(["HTTP/1.1 200 OK"], body: wrong)
        #expect(first.summary == "retry: CRC-32 mismatch; downloading again from zero" && first.delay == 0)
        #expect(sink.bytes.isEmpty)
        let failure = Failure(isLocal: false, reason: "CRC-32 mismatch after a fresh download", url: Self.url)
        #expect(download.play(["HTTP/1.1 200 OK"], body: wrong).summary == "done: \(FileResult.Outcome.failed(failure))")
        #expect(sink.discarded)
    }

    @Test("a CRC mismatch followed by the right bytes is proven")
    func checksumMismatchThenRight() {
        let download = download(MemorySink(expected: Self.file))
        #expect(download.play(["HTTP/1.1 200 OK"], body: Array("9876543210".utf8)).summary.hasPrefix("retry: "))
        #expect(download.play(["HTTP/1.1 200 OK"], body: Self.file).summary == "proven")
    }

    @Test("a body that ends short is retried, and the retry resumes from the bytes received")
    func shortBody() {
        let sink = MemorySink(expected: Self.file)
        let download = download(sink)
        let next = download.play(["HTTP/1.1 200 OK", "ETag: \"v1\""], body: Array(Self.file[..<6]))
        #expect(next.summary == "retry: the server closed the response after 6 of 10 bytes")
        #expect(sink.bytes == Array(Self.file[..<6]))
        let rest = download.play(["HTTP/1.1 206 Partial Content", "Content-Range: bytes 6-9/10"], body: Array(Self.file[6...]))
        #expect(rest.summary == "proven")
    }

    @Test("a body longer than the manifest's size fails the file at the size")
    func longBody() {
        let sink = MemorySink(expected: Self.file)
        let failure = Failure(isLocal: false, reason: "the server sent more than the manifest's 10 bytes", httpStatus: 200, url: Self.url)
        #expect(download(sink).play(["HTTP/1.1 200 OK"], body: Self.file + [0x41]).summary == "done: \(FileResult.Outcome.failed(failure))")
    }

    @Test("a transient curl error is retried; a final one (TLS, URL) goes to the next URL; a too-large announcement fails")
    func curlCodes() {
        let transient = download(MemorySink(expected: Self.file), baseDelay: 0.01).play([], code: CURLE_COULDNT_CONNECT)
        #expect(transient.summary.hasPrefix("retry: ") && transient.delay != nil)
        let final = download(MemorySink(expected: Self.file), urls: [Self.url, Self.mirror]).play([], code: CURLE_PEER_FAILED_VERIFICATION)
        #expect(final.summary.hasPrefix("retry: ") && final.summary.hasSuffix("; trying mirror 1") && final.delay == 0)
        let tooLarge = download(MemorySink(expected: Self.file)).play(["HTTP/1.1 200 OK"], code: CURLE_FILESIZE_EXCEEDED)
        let failure = Failure(isLocal: false, reason: "the server announced more than the manifest's 10 bytes", httpStatus: 200, url: Self.url)
        #expect(tooLarge.summary == "done: \(FileResult.Outcome.failed(failure))")
    }

    @Test("a server that cannot be reached is left at once for another source, and retried with backoff when it is the only one")
    func unreachableSource() {
        for code in [CURLE_COULDNT_CONNECT, CURLE_COULDNT_RESOLVE_HOST] {
            let withMirror = download(MemorySink(expected: Self.file), urls: [Self.url, Self.mirror]).play([], code: code)
            #expect(withMirror.summary.hasPrefix("retry: ") && withMirror.summary.hasSuffix("; trying mirror 1") && withMirror.delay == 0)
            let alone = download(MemorySink(expected: Self.file), baseDelay: 0.01).play([], code: code)
            #expect(alone.summary.hasPrefix("retry: ") && !alone.summary.contains("mirror") && (alone.delay ?? 0) > 0)
        }
    }

    @Test("a file below the resume threshold saves no record, a retry within the run still resumes, and a stop drops its bytes")
    func smallFileKeepsNoRecord() {
        let sink = MemorySink(expected: Self.file)
        let small = download(sink, minimumResumableSize: Self.entry.size + 1)
        let next = small.play(["HTTP/1.1 200 OK", "ETag: \"v1\""], body: Array(Self.file[..<6]))
        #expect(next.summary == "retry: the server closed the response after 6 of 10 bytes")
        #expect(sink.saved == nil)
        let rest = small.play(["HTTP/1.1 206 Partial Content", "Content-Range: bytes 6-9/10"], body: Array(Self.file[6...]))
        #expect(rest.summary == "proven")
        #expect(sink.saved == nil)

        let stopped = MemorySink(expected: Self.file)
        let interrupted = download(stopped, minimumResumableSize: Self.entry.size + 1)
        _ = interrupted.deliver(["HTTP/1.1 200 OK", "ETag: \"v1\""], body: Array(Self.file[..<6]))
        interrupted.suspend()
        #expect(stopped.discarded && stopped.bytes.isEmpty && stopped.saved == nil)
    }

    @Test("a file at the resume threshold saves its record, and a stop keeps its bytes for the next run")
    func fileAtTheThresholdKeepsItsRecord() {
        let sink = MemorySink(expected: Self.file)
        let download = download(sink, minimumResumableSize: Self.entry.size)
        _ = download.deliver(["HTTP/1.1 200 OK", "ETag: \"v1\""], body: Array(Self.file[..<6]))
        download.suspend()
        #expect(!sink.discarded && sink.bytes == Array(Self.file[..<6]))
        #expect(sink.saved == ["url": Self.url, "etag": "\"v1\""])
    }

    @Test("by default, files under 256 KiB keep no resume record")
    func defaultThreshold() {
        #expect(TransferOptions().minimumResumableSize == 256 << 10)
    }

    @Test("an unexpected status (a 1xx or 2xx other than 200 and 206) is final for its URL")
    func unexpectedStatus() {
        let failure = Failure(isLocal: false, reason: "unexpected HTTP status 204", httpStatus: 204, url: Self.url)
        #expect(download(MemorySink(expected: Self.file)).play(["HTTP/1.1 204 No Content"]).summary == "done: \(FileResult.Outcome.failed(failure))")
    }
}
