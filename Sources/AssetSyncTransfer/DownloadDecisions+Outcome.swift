import AssetSyncSystem
import AssetSyncModel

extension DownloadDecisions {
    /// What becomes of the bytes held before the next step.
    enum BytesDrop: Equatable {
        case keep
        /// Start from zero; a failure to drop them costs nothing a retry would not see.
        case restart
        /// Start from zero; a failure to drop them ends the file with that local error.
        case restartOrStop
        /// Remove them and their record: the file failed.
        case discard
    }

    /// What follows an attempt, once the bytes are dropped as `drop` says.
    enum Step: Equatable {
        /// Ask again after `after` seconds (`reason` empty: a redirect followed, the same attempt).
        case retry(after: Double, reason: String)
        /// Every byte is here: the proof decides.
        case prove
        /// The segmented file is fetched again as one stream from zero, from the current source on.
        case oneStream(reason: String)
        case fail(Failure)
        /// A local error: the file ends with it, and the run too when it says so.
        case stop(SystemError)
    }

    struct Outcome: Equatable {
        var drop = BytesDrop.keep
        var step: Step
    }

    /// Decides what follows an attempt that ended with `end` (`detail`: the transport's words for
    /// it, which may quote the server) with `offset` bytes held; `location` is a redirect's target.
    mutating func conclude(_ end: TransportEnd, detail: String, offset: Int64, location: String?) -> Outcome {
        var outcome = decide(end, detail: detail, offset: offset, location: location)
        // A document is asked for whole: what an attempt received is dropped before the next one.
        if kind != .file, case .retry = outcome.step { outcome.drop = .restart }
        return outcome
    }

    private mutating func decide(_ end: TransportEnd, detail: String, offset: Int64, location: String?) -> Outcome {
        let status = head.status
        if case .local(let error)? = failure { return Outcome(step: .stop(error)) }
        if case .oneStream(let reason)? = failure { return Outcome(step: .oneStream(reason: reason)) }
        if failure == nil, status >= 400 { failure = .httpStatus(status) }
        // A segment's connection may fail after its last byte: a retry could only ask for an empty range.
        if isSegment, bodyAccepted, failure == nil, offset == range.upperBound { return Outcome(step: .prove) }
        if failure == nil, end == .ok {
            if status == 304, kind != .file { return notModified() }
            if (300..<400).contains(status) { return followRedirect(to: location) }
            if bodyAccepted {
                // A document's body ends where the server ends it, within the bound its writes had.
                if offset == range.upperBound || kind != .file { return Outcome(step: .prove) }
                return transient(
                    "the server closed the response after \(offset - range.lowerBound) of \(range.count) bytes", status: status,
                    offset: offset)
            }
        }
        switch failure {
        case .httpStatus(let status)?:
            if status == 416 { return rangeNotServed("HTTP 416 (range not satisfiable)", status: status, offset: offset) }
            if RetryPolicy.isTransient(status: status) {
                return transient("HTTP \(status)", status: status, retryAfter: head.retryAfterSeconds, offset: offset)
            }
            let reason = keepsRefusal ? S3Refusal.reason(body: refusalBody) : "HTTP \(status)"
            return nextURL(Failure(isLocal: false, reason: reason, httpStatus: status, url: currentURL), marks: nil)
        case .wrongContentRange(let answered)?:
            return rangeNotServed(
                "a \(isSegment ? "range" : "resume") was answered with Content-Range \(QuotedValue.serverValue(answered))",
                status: status, offset: offset)
        case .multipartRanges?:
            return rangeNotServed(
                "a \(isSegment ? "range" : "resume") was answered with multipart/byteranges", status: status, offset: offset)
        case .otherVersion(let asked, let answered)?:
            dropVersion()
            var outcome = transient(
                "a resume of version \(QuotedValue.serverValue(asked)) was answered with version "
                    + "\(QuotedValue.serverValue(answered)) (the server ignores If-Range); restarting from zero",
                status: status, offset: range.lowerBound)
            outcome.drop = .restart
            return outcome
        case .unexpectedStatus(let status)?:
            return nextURL(
                Failure(isLocal: false, reason: "unexpected HTTP status \(status)", httpStatus: status, url: currentURL), marks: nil)
        case .bodyTooLong? where kind != .file:
            return nextURL(
                Failure(
                    isLocal: false, reason: "the answer is larger than the \(ByteCount.human(entry.size)) limit for this file",
                    url: currentURL, sizeLimitExceeded: entry.size),
                marks: nil)
        case .bodyTooLong?:
            return nextURL(Failure(
                isLocal: false, reason: "the server sent more than the manifest's \(entry.size) bytes", httpStatus: status,
                url: currentURL), marks: .source)
        case .wrongLength(let length)?:
            return nextURL(Failure(
                isLocal: false, reason: "the server announced \(length) bytes, not the manifest's \(entry.size)", httpStatus: status,
                url: currentURL), marks: .source)
        case .stalled(let verdict)?:
            return transient(liveness.describe(verdict), status: status == 0 ? nil : status, offset: offset)
        case .local?, .oneStream?, nil:
            break
        }
        switch end {
        case .tooLarge:
            return nextURL(Failure(
                isLocal: false, reason: "the server announced more than the manifest's \(entry.size) bytes",
                httpStatus: status, url: currentURL), marks: .source)
        case _ where end.isFinal:
            return nextURL(
                Failure(isLocal: false, reason: detail, httpStatus: status == 0 ? nil : status, url: currentURL),
                marks: end.isConnectionLevel ? .host : .source)
        case _ where end.isUnreachable && nextSourceIndex() != nil:
            // Another source has the same bytes: go there now rather than after the backoff of every retry.
            return nextURL(Failure(isLocal: false, reason: detail, url: currentURL), marks: .host)
        default:
            return transient(
                detail, status: status == 0 ? nil : status, marks: end.isConnectionLevel ? .host : .source, offset: offset)
        }
    }

    /// The whole body failed its proof for `reason`: fetched from zero from the next source
    /// (marking this one bad when every byte came from it), or, with none left, once more from the
    /// same one, past any cache; a mismatch after that fails the file.
    mutating func rejectProof(_ reason: String) -> Outcome {
        crcRestarts += 1
        if rejectBytes(reason: reason, fromThisSourceOnly: bytesSource == urlIndex) {
            dropVersion()
            return Outcome(drop: .restartOrStop, step: .retry(after: 0, reason: "\(reason); downloading again from zero from \(sourceWords)"))
        }
        guard crcRestarts <= 1 else {
            record = nil
            seen[urlIndex] = "\(reason) after a fresh download"
            return Outcome(drop: .discard, step: .fail(failed(Failure(isLocal: false, reason: "\(reason) after a fresh download", url: currentURL))))
        }
        dropVersion()
        return Outcome(drop: .restartOrStop, step: .retry(after: 0, reason: "\(reason); downloading again from zero"))
    }

    /// The bytes from the current source failed their proof: the source is marked bad when they all
    /// came from it, and the download moves to the next source it may ask. False when none is left.
    mutating func rejectBytes(reason: String, fromThisSourceOnly: Bool) -> Bool {
        if fromThisSourceOnly { health.markBad(sources[urlIndex], reason: reason, at: currentURL) }
        seen[urlIndex] = reason
        guard let next = nextSourceIndex() else { return false }
        moveTo(next)
        return true
    }

    /// A document's 304: the copy held is current when the request asked only for a change from it;
    /// to a request that did not, it is no answer.
    private mutating func notModified() -> Outcome {
        guard askedConditionally else {
            return nextURL(
                Failure(isLocal: false, reason: "unexpected HTTP status 304", httpStatus: 304, url: currentURL), marks: nil)
        }
        keepsHeldCopy = true
        return Outcome(step: .prove)
    }

    private mutating func followRedirect(to location: String?) -> Outcome {
        if let refusal = route.follow(location) {  // a refused hop leaves the route as it was
            return nextURL(
                Failure(isLocal: false, reason: refusal.reason, httpStatus: head.status, url: currentURL, remedy: refusal.remedy),
                marks: nil)
        }
        attempts -= 1  // a hop of the same attempt
        return Outcome(step: .retry(after: 0, reason: ""))
    }

    /// A failure that may pass when asked again: retried after a backoff, until `--retries` are
    /// spent on this source; then it is marked bad (as far as `marks` says) and the next one asked.
    private mutating func transient(
        _ reason: String, status: Int? = nil, retryAfter: Double? = nil, marks scope: SourceHealth.Scope = .source, offset: Int64
    ) -> Outcome {
        // Progress earns its retries back; a document's bytes are dropped before the retry, so none it made.
        if kind == .file, offset - attemptStartOffset >= 1 << 20 { attemptsOnURL = 0 }
        attemptsOnURL += 1
        guard attemptsOnURL <= options.retries else {
            return nextURL(
                Failure(isLocal: false, reason: reason, httpStatus: status, url: currentURL), marks: scope,
                seenAs: "\(reason) (\(attemptsOnURL) attempts)")
        }
        return Outcome(step: .retry(after: RetryPolicy(options).delay(beforeRetry: attemptsOnURL, retryAfter: retryAfter), reason: reason))
    }

    /// A range request (a segment's, or a resume's) was not answered with the range asked: a
    /// segment makes its file one download in one stream from zero, as a 200 to it does (the
    /// server ignores Range); a resume starts from zero, a request without Range.
    private mutating func rangeNotServed(_ reason: String, status: Int, offset: Int64) -> Outcome {
        if isSegment { return Outcome(step: .oneStream(reason: reason)) }
        dropVersion()
        var outcome = transient("\(reason); restarting from zero", status: status, offset: range.lowerBound)
        outcome.drop = .restart
        return outcome
    }

    /// The current source has failed for good: go on with the next one, or fail the file. `marks`
    /// says what the failure is about beyond this file (nil: this file only, as for a 404).
    private mutating func nextURL(_ failure: Failure, marks scope: SourceHealth.Scope?, seenAs: String? = nil) -> Outcome {
        if let scope { health.markBad(sources[urlIndex], reason: seenAs ?? failure.reason, scope: scope, at: currentURL) }
        seen[urlIndex] = seenAs ?? failure.reason
        guard let next = nextSourceIndex() else { return Outcome(step: .fail(failed(failure))) }
        moveTo(next)
        if isSegment { return Outcome(step: .oneStream(reason: "\(failure.reason); trying \(sourceWords)")) }
        return Outcome(step: .retry(after: 0, reason: "\(failure.reason); trying \(sourceWords)"))
    }

    /// The next source to ask: the first not asked yet and not marked bad; when every one left is
    /// marked, the first of them, so that no source of the file goes unasked before it fails.
    private func nextSourceIndex() -> Int? {
        let left = sources.indices.filter { !asked.contains($0) }
        return left.first { !health.isBad(sources[$0]) } ?? left.first
    }

    /// The current source in a retry line: `mirror N`, or the primary URL, which a file goes back
    /// to when it was put off for being marked bad.
    private var sourceWords: String { urlIndex == 0 ? "the primary URL" : "mirror \(urlIndex)" }

    mutating func moveTo(_ index: Int) {
        urlIndex = index
        asked.insert(index)
        route = RequestRoute(sources[index].url, options: options)
        attemptsOnURL = 0
    }

    /// Continues where `other`, a segment of the same file, left its sources.
    mutating func continueSources(of other: DownloadDecisions) {
        asked = other.asked
        seen = other.seen
        moveTo(other.urlIndex)
    }

    /// The file fails: with more than one source, its failure lists what each one answered (every
    /// one was asked: a source marked bad is put off, never skipped).
    private func failed(_ failure: Failure) -> Failure {
        var failure = failure
        if sources.count > 1 {
            failure.sources = sources.indices.map { SourceFailure(url: sources[$0].url, reason: seen[$0] ?? "not asked") }
        }
        return failure
    }

    /// The file's result: `attempts`, `transferred` and `reused` are the file's (its segments' when it has any).
    func result(_ outcome: FileResult.Outcome, attempts: Int, transferred: Int64, reused: Int64) -> FileResult {
        let isCommitted = outcome == .committed
        return FileResult(
            path: entry.path, size: entry.size, action: action, outcome: outcome, attempts: attempts, transferred: transferred,
            source: isCommitted ? sources[urlIndex] : nil, isFromMirror: isCommitted && urlIndex > 0, failedSources: failedOrigins,
            reusedBytes: isCommitted ? reused : 0)
    }

    /// The origins of the sources that failed this file, each once, in the order asked.
    private var failedOrigins: [String] {
        var origins: [String] = []
        for index in seen.keys.sorted() where !origins.contains(sources[index].origin) { origins.append(sources[index].origin) }
        return origins
    }
}
