import Testing
@testable import AssetSyncModel
@testable import AssetSyncTransfer

/// `DownloadDecisions` alone, without libcurl or a sink: the request an attempt makes, the verdict
/// on a response head for it, the bytes it may write, and what follows its end.
@Suite struct DownloadDecisionsTests {
    static let entry = ManifestEntry(path: "a.bin", size: 10, crc32: 0)
    static let primary = DownloadSource(url: "http://origin.invalid/a.bin")
    static let mirror = DownloadSource(url: "http://mirror.invalid/a.bin")
    static let sameHost = DownloadSource(url: "http://origin.invalid/other/a.bin")
    static let v1 = ResumeRecord(url: primary.url, etag: "\"v1\"", lastModified: nil)

    private func decisions(
        sources: [DownloadSource] = [primary], health: SourceHealth = SourceHealth(), range: Range<Int64> = 0..<10,
        isSegment: Bool = false, record: ResumeRecord? = nil, kind: TransferKind = .file
    ) -> DownloadDecisions {
        var options = TransferOptions()
        options.retries = 2
        options.retryBaseDelay = 0.01
        options.minimumResumableSize = 0
        return DownloadDecisions(
            entry: Self.entry, action: .new, sources: sources, kind: kind, health: health, options: options, range: range,
            isSegment: isSegment, record: record)
    }

    /// Starts an attempt from `offset`, hears `head` and has it judged; the request it made, and the verdict.
    private func answer(
        _ decisions: inout DownloadDecisions, _ head: [String], at offset: Int64 = 0, awaitingLead: Bool = false
    ) -> (DownloadDecisions.Request, DownloadDecisions.HeadVerdict) {
        decisions.beginAttempt(now: 0)
        let request = decisions.request(from: offset)
        for line in head + [""] { decisions.hear(Substring(line + "\r\n"), at: 0) }
        return (request, decisions.accept(offset: offset, awaitingLead: awaitingLead))
    }

    @Test("a 200 to a resume restarts from zero, and keeps the new version's record")
    func wholeFileToAResume() {
        var decisions = decisions(record: Self.v1)
        #expect(!decisions.dropsKeptBytes(offset: 4))
        let (request, verdict) = answer(&decisions, ["HTTP/1.1 200 OK", "ETag: \"v2\""], at: 4)
        #expect(request == .init(range: "4-", headers: ["If-Range: \"v1\""]))
        let fresh = ResumeRecord(url: Self.primary.url, etag: "\"v2\"", lastModified: nil)
        #expect(verdict == .write(restart: true, save: fresh))
        #expect(decisions.bytesSource == 0 && decisions.record == fresh)
    }

    @Test("kept bytes without a validator are dropped before asking: a resume needs If-Range")
    func noValidatorNoResume() {
        #expect(decisions(record: ResumeRecord(url: Self.primary.url, etag: nil, lastModified: nil)).dropsKeptBytes(offset: 4))
        #expect(!decisions(isSegment: true).dropsKeptBytes(offset: 4))
    }

    @Test("a segment answered with the wrong Content-Range makes its file one whole download, asked for without Range")
    func wrongContentRangeOnASegment() {
        var segment = decisions(range: 0..<5, isSegment: true)
        let (request, verdict) = answer(
            &segment, ["HTTP/1.1 206 Partial Content", "Content-Range: bytes 0-9/10", "ETag: \"v1\""], awaitingLead: true)
        #expect(request == .init(range: "0-4", headers: []))
        #expect(verdict == .refuse(.wrongContentRange("bytes 0-9/10")))
        let outcome = segment.conclude(.writeRefused, detail: "", offset: 0, location: nil)
        #expect(outcome == .init(step: .oneStream(reason: "a range was answered with Content-Range bytes 0-9/10")))

        // The one stream that replaces the segments asks for the whole file once, and takes a 200.
        var whole = decisions()
        whole.continueSources(of: segment)
        let (again, answered) = answer(&whole, ["HTTP/1.1 200 OK", "ETag: \"v1\""])
        #expect(again == .init(range: nil, headers: []))
        #expect(answered == .write(restart: false, save: Self.v1))
    }

    @Test("a 416 or multipart/byteranges to a segment makes its file one stream; to a resume, it restarts from zero")
    func rangeNotServed() {
        var segment = decisions(range: 5..<10, isSegment: true, record: Self.v1)
        #expect(answer(&segment, ["HTTP/1.1 416 Range Not Satisfiable"], at: 5).1 == .refuse(.httpStatus(416)))
        #expect(segment.conclude(.ok, detail: "", offset: 5, location: nil)
            == .init(step: .oneStream(reason: "HTTP 416 (range not satisfiable)")))

        var parts = decisions(range: 5..<10, isSegment: true, record: Self.v1)
        let multipart = ["HTTP/1.1 206 Partial Content", "Content-Type: multipart/byteranges; boundary=B"]
        #expect(answer(&parts, multipart, at: 5).1 == .refuse(.multipartRanges))
        #expect(parts.conclude(.writeRefused, detail: "", offset: 5, location: nil)
            == .init(step: .oneStream(reason: "a range was answered with multipart/byteranges")))

        var resume = decisions(record: Self.v1)
        _ = answer(&resume, multipart, at: 4)
        let outcome = resume.conclude(.writeRefused, detail: "", offset: 4, location: nil)
        #expect(outcome.drop == .restart && resume.record == nil)
        guard case .retry(_, let reason) = outcome.step else { Issue.record("\(outcome)"); return }
        #expect(reason == "a resume was answered with multipart/byteranges; restarting from zero")
    }

    @Test("a 503 with Retry-After waits that long before asking the same URL again")
    func retryAfter() {
        var decisions = decisions(sources: [Self.primary, Self.mirror])
        _ = answer(&decisions, ["HTTP/1.1 503 Service Unavailable", "Retry-After: 7"])
        #expect(decisions.conclude(.ok, detail: "", offset: 0, location: nil) == .init(step: .retry(after: 7, reason: "HTTP 503")))
        #expect(decisions.currentURL == Self.primary.url)
    }

    @Test("a refused connection marks the host and goes on with the next source at once")
    func connectionRefused() {
        let health = SourceHealth()
        var decisions = decisions(sources: [Self.primary, Self.mirror], health: health)
        decisions.beginAttempt(now: 0)
        _ = decisions.request(from: 0)
        let outcome = decisions.conclude(.connectionRefused, detail: "Failed to connect", offset: 0, location: nil)
        #expect(outcome == .init(step: .retry(after: 0, reason: "Failed to connect; trying mirror 1")))
        #expect(decisions.currentURL == Self.mirror.url)
        #expect(health.isBad(Self.sameHost) && !health.isBad(Self.mirror))
        // A later file puts the host off: it starts at the mirror.
        #expect(self.decisions(sources: [Self.primary, Self.mirror], health: health).currentURL == Self.mirror.url)
    }

    @Test("bytes past the manifest's size are refused, and the file fails at that source")
    func bytesPastTheSize() {
        var decisions = decisions()
        #expect(answer(&decisions, ["HTTP/1.1 200 OK"]).1 == .write(restart: false, save: ResumeRecord(url: Self.primary.url, etag: nil, lastModified: nil)))
        #expect(decisions.allowed(8, at: 0) == 8)
        #expect(decisions.allowed(8, at: 8) == 2)
        #expect(decisions.allowed(8, at: 10) == 0)
        decisions.refuse(.bodyTooLong)
        let failure = Failure(isLocal: false, reason: "the server sent more than the manifest's 10 bytes", httpStatus: 200, url: Self.primary.url)
        #expect(decisions.conclude(.writeRefused, detail: "", offset: 10, location: nil) == .init(step: .fail(failure)))
    }

    @Test("a 404 is final for its source, marks nothing, and moves to the next mirror")
    func notFoundMovesOn() {
        let health = SourceHealth()
        var decisions = decisions(sources: [Self.primary, Self.mirror], health: health)
        #expect(answer(&decisions, ["HTTP/1.1 404 Not Found"]).1 == .refuse(.httpStatus(404)))
        #expect(decisions.conclude(.ok, detail: "", offset: 0, location: nil)
            == .init(step: .retry(after: 0, reason: "HTTP 404; trying mirror 1")))
        #expect(decisions.currentURL == Self.mirror.url && !health.isBad(Self.primary))
        #expect(decisions.attemptsOnURL == 0)
    }

    @Test("the last source failing fails the file, with one line per source")
    func lastSourceFails() {
        var decisions = decisions(sources: [Self.primary, Self.mirror])
        _ = answer(&decisions, ["HTTP/1.1 404 Not Found"])
        _ = decisions.conclude(.ok, detail: "", offset: 0, location: nil)
        for _ in 0..<2 {
            _ = answer(&decisions, ["HTTP/1.1 500 Internal Server Error"])
            guard case .retry = decisions.conclude(.ok, detail: "", offset: 0, location: nil).step else { Issue.record("no retry"); return }
        }
        _ = answer(&decisions, ["HTTP/1.1 500 Internal Server Error"])
        let failure = Failure(
            isLocal: false, reason: "HTTP 500", httpStatus: 500, url: Self.mirror.url,
            sources: [.init(url: Self.primary.url, reason: "HTTP 404"), .init(url: Self.mirror.url, reason: "HTTP 500 (3 attempts)")])
        #expect(decisions.conclude(.ok, detail: "", offset: 0, location: nil) == .init(step: .fail(failure)))
        #expect(decisions.result(.failed(failure), attempts: 4, transferred: 0, reused: 0).failedSources
            == [Self.primary.origin, Self.mirror.origin])
    }

    @Test("a CRC mismatch fetches from zero once more past any cache; a second one fails the file and discards its bytes")
    func proofRejected() {
        var decisions = decisions()
        _ = answer(&decisions, ["HTTP/1.1 200 OK"])
        #expect(decisions.rejectProof("CRC-32 mismatch")
            == .init(drop: .restartOrStop, step: .retry(after: 0, reason: "CRC-32 mismatch; downloading again from zero")))
        decisions.beginAttempt(now: 0)
        #expect(decisions.request(from: 0).headers == ["Cache-Control: no-cache", "Pragma: no-cache"])
        let failure = Failure(isLocal: false, reason: "CRC-32 mismatch after a fresh download", url: Self.primary.url)
        #expect(decisions.rejectProof("CRC-32 mismatch") == .init(drop: .discard, step: .fail(failure)))
    }

    @Test("which transport ends are final, unreachable or about the whole host")
    func transportEnds() {
        #expect(TransportEnd.certificateRefused.isFinal && TransportEnd.requestRefused.isFinal && !TransportEnd.timedOut.isFinal)
        #expect(TransportEnd.hostNotFound.isUnreachable && !TransportEnd.tlsFailed.isUnreachable)
        #expect(TransportEnd.tlsFailed.isConnectionLevel && !TransportEnd.requestRefused.isConnectionLevel)
    }

    /// Starts an attempt and hears `head` without a body, as a redirect or a 304 arrives: no verdict is asked for.
    private func ask(_ decisions: inout DownloadDecisions, _ head: [String]) -> DownloadDecisions.Request {
        decisions.beginAttempt(now: 0)
        let request = decisions.request(from: 0)
        for line in head + [""] { decisions.hear(Substring(line + "\r\n"), at: 0) }
        return request
    }

    static let held = CachedManifest(path: "/cache/manifest", etag: "\"v0\"", lastModified: "Mon, 30 Nov 2026 10:00:00 GMT")

    @Test("a document is asked for whole and conditionally at the URL its copy came from; after a redirect, without its validators")
    func documentConditionalRequest() {
        var document = decisions(kind: .document(held: Self.held))
        let first = ask(&document, ["HTTP/1.1 302 Found", "Location: http://cdn.invalid/a.bin"])
        #expect(first == .init(range: nil, headers: ["If-None-Match: \"v0\"", "If-Modified-Since: Mon, 30 Nov 2026 10:00:00 GMT"]))
        #expect(document.conclude(.ok, detail: "", offset: 0, location: "http://cdn.invalid/a.bin")
            == .init(drop: .restart, step: .retry(after: 0, reason: "")))
        let second = ask(&document, ["HTTP/1.1 304 Not Modified"])
        #expect(second == .init(range: nil, headers: []))
        // The copy's validators were not asked about there: a 304 is no answer about it.
        let failure = Failure(isLocal: false, reason: "unexpected HTTP status 304", httpStatus: 304, url: "http://cdn.invalid/a.bin")
        #expect(document.conclude(.ok, detail: "", offset: 0, location: nil) == .init(step: .fail(failure)))
        #expect(!document.keepsHeldCopy)
    }

    @Test("a document's 304 to its conditional request is its proof, and keeps the copy held")
    func documentNotModified() {
        var document = decisions(kind: .document(held: Self.held))
        _ = ask(&document, ["HTTP/1.1 304 Not Modified"])
        #expect(document.conclude(.ok, detail: "", offset: 0, location: nil) == .init(step: .prove))
        #expect(document.keepsHeldCopy)
    }

    @Test("a document's 200 is written whatever length it announces, up to its bound; a byte past the bound fails it naming the limit")
    func documentBound() {
        var document = decisions(kind: .document(held: nil))
        let (_, verdict) = answer(&document, ["HTTP/1.1 200 OK", "Content-Length: 99", "ETag: \"v1\""])
        #expect(verdict == .write(restart: false, save: ResumeRecord(url: Self.primary.url, etag: "\"v1\"", lastModified: nil)))
        #expect(document.allowed(8, at: 8) == 2)
        document.refuse(.bodyTooLong)
        let failure = Failure(
            isLocal: false, reason: "the answer is larger than the 10 B limit for this file", url: Self.primary.url, sizeLimitExceeded: 10)
        #expect(document.conclude(.writeRefused, detail: "", offset: 10, location: nil) == .init(step: .fail(failure)))
    }

    @Test("a document's body is complete where the server ends it, short of its bound")
    func documentEndsWhereTheServerEndsIt() {
        var document = decisions(kind: .document(held: nil))
        _ = answer(&document, ["HTTP/1.1 200 OK"])
        #expect(document.conclude(.ok, detail: "", offset: 3, location: nil) == .init(step: .prove))
    }

    @Test("a document cut off is asked for again from zero, and the bytes it received earn no retry back")
    func documentRetriesAreNotEarnedBack() {
        var document = decisions(range: 0..<(4 << 20), kind: .document(held: nil))
        for _ in 0..<2 {
            _ = answer(&document, ["HTTP/1.1 200 OK"])
            let outcome = document.conclude(.partialBody, detail: "transfer closed", offset: 2 << 20, location: nil)
            #expect(outcome.drop == .restart)
            guard case .retry = outcome.step else { Issue.record("no retry"); return }
        }
        _ = answer(&document, ["HTTP/1.1 200 OK"])
        let failure = Failure(isLocal: false, reason: "transfer closed", httpStatus: 200, url: Self.primary.url)
        #expect(document.conclude(.partialBody, detail: "transfer closed", offset: 2 << 20, location: nil) == .init(step: .fail(failure)))
    }
}
