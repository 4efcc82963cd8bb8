package import AssetSyncModel
import AssetSyncSystem
import CCurl
import CCurlShim
import Glibc

/// One file's download, or one segment of a file fetched in segments (`SegmentedFile`): its sink,
/// its easy handle, the sources to try, and the state of the current attempt. The easy handle's
/// callbacks reach this owner through their user data. Lives on the transfer thread only.
///
/// Sources go in the manifest's order, those the run's `SourceHealth` marked bad put off until the
/// others have failed; then they are asked too, in order, before the file fails: a mark is what
/// other files (or this file at another source on the same host) saw, and a file failed at a
/// source it never asked would be a guess.
package final class Download {
    package let entry: ManifestEntry
    let action: SyncPlan.Action
    let sources: [DownloadSource]
    package let sink: any DownloadSink
    let easy = CurlEasy()
    private let options: TransferOptions
    private let clock: () -> Double
    /// The run's table of bad sources.
    let health: SourceHealth

    private(set) var urlIndex = 0
    /// The sources asked so far (or being asked), by their index in `sources`.
    private var asked: Set<Int> = []
    /// What each source tried answered, by its index in `sources`, for the file's failure.
    private var seen: [Int: String] = [:]
    /// The source every byte in the sink came from in this run; nil when the bytes came from an
    /// earlier run or from more than one source, so that a mismatch can blame none of them.
    private(set) var bytesSource: Int?
    /// The current URL, after the redirects followed from the mirror being tried.
    private var route: RequestRoute
    var currentURL: String { route.url }
    /// Attempts on the current URL that count against `--retries`.
    private var ownAttemptsOnURL = 0
    private(set) var attempts = 0
    private var crcRestarts = 0
    /// The bytes of the file this download fetches: all of them, or one segment's.
    let range: Range<Int64>
    /// The file this download is a segment of; nil for a file in one stream.
    private(set) weak var group: SegmentedFile?
    private var isSegment: Bool { group != nil }
    /// This segment's offset when its file's record last noted it.
    private var recordedOffset: Int64 = 0
    /// Which version of the file the bytes in the sink are; nil while they start from zero.
    private var record: ResumeRecord?
    /// Whether the reporter has heard of this download starting.
    var announced = false
    /// Told when a resume becomes a download from zero with no retry to say so (the bytes dropped).
    var restarted: ((_ discarded: Int64, _ reason: String) -> Void)?
    /// Monotonic time before which the next attempt must not start.
    var notBefore = 0.0
    /// Body bytes received by this run, across attempts (discarded ones included).
    private(set) var transferred: Int64 = 0

    // The current attempt.
    private var head = ResponseHead()
    private var requestedOffset: Int64 = 0
    private var bodyAccepted = false
    private var attemptFailure: AttemptFailure?
    private var attemptStartOffset: Int64 = 0
    private var liveness: Liveness
    /// This download's part of `--limit-rate` while it runs (nil: unlimited).
    private var rateShare: Int64?

    /// What went wrong inside a callback, decided there and acted on at completion.
    enum AttemptFailure: Equatable {
        case httpStatus(Int)
        case wrongContentRange(String)
        /// A resume answered with the bytes of another version: the server ignores `If-Range` (moto's S3 server does).
        case otherVersion(asked: String, answered: String)
        case unexpectedStatus(Int)
        case bodyTooLong
        /// A 200 whose Content-Length is not the manifest's size.
        case wrongLength(Int64)
        case stalled(Liveness.Verdict)
        case local(SystemError)
        /// A segment's response that makes its file one stream: the server ignores `Range`, or the
        /// file changed between segments.
        case oneStream(String)
        /// A range answered with `multipart/byteranges` (several parts, each with its own head).
        case multipartRanges
    }

    /// What the engine does next with this download.
    enum Next {
        case retry(after: Double, reason: String)
        /// Proven by size and checksum: the delegate commits it.
        case proven
        case done(FileResult)
        /// A local error that stops every transfer.
        case stopRun(FileResult)
        /// This segment holds all its bytes; others of its file are still under way.
        case segmentDone
        /// The segmented file is fetched again as one stream from zero (`fresh`: past any cache, after
        /// a CRC mismatch), from this download's current URL on.
        case oneStream(reason: String, fresh: Bool)
    }

    /// Retries on the current URL counted against `--retries`: for the file as a whole when this is a segment.
    private var attemptsOnURL: Int {
        get { group?.attemptsOnURL ?? ownAttemptsOnURL }
        set { if let group { group.attemptsOnURL = newValue } else { ownAttemptsOnURL = newValue } }
    }

    /// The sink of the whole file: this download's own, or the segmented file's.
    package var fileSink: any DownloadSink { group?.file ?? sink }

    /// Continues the count of what came before this download: the segments it replaces.
    func carry(attempts: Int, transferred: Int64, crcRestarts: Int) {
        self.attempts = attempts
        self.transferred = transferred
        self.crcRestarts = crcRestarts
    }

    /// - Parameters:
    ///   - clock: monotonic seconds, for stall checks.
    ///   - segment: the file and the range this download fetches when it is one of its segments.
    init(
        entry: ManifestEntry, action: SyncPlan.Action, sources: [DownloadSource], health: SourceHealth, sink: any DownloadSink,
        options: TransferOptions, clock: @escaping () -> Double, segment: (file: SegmentedFile, range: Range<Int64>)? = nil
    ) {
        self.clock = clock
        self.entry = entry
        self.action = action
        self.sources = sources
        self.health = health
        urlIndex = sources.firstIndex { !health.isBad($0) } ?? 0
        asked = [urlIndex]
        self.sink = sink
        range = segment?.range ?? 0..<entry.size
        group = segment?.file
        record = segment.map(\.file.record) ?? sink.resumeFields.flatMap(ResumeRecord.init(fields:))
        self.options = options
        route = RequestRoute(sources[urlIndex].url, scope: options.credentialScope)
        liveness = Liveness(silence: options.stallTimeout, minimumRate: options.speedLimit, window: options.speedTime, now: 0)
        configureHandle()
    }

    private func configureHandle() {
        let owner = Unmanaged.passUnretained(self).toOpaque()
        easy.configureCommon(options)
        // Stalls are timed here from the last byte received: libcurl's low-speed check averages
        // over several seconds and reacted about 6 s late.
        easy.set(CURLOPT_NOPROGRESS, false)
        easy.set(CURLOPT_XFERINFODATA, pointer: owner)
        easy.setProgressCallback { owner, _, _, _, _ in
            Unmanaged<Download>.fromOpaque(owner!).takeUnretainedValue().hasStalled() ? 1 : 0
        }
        easy.set(CURLOPT_WRITEDATA, pointer: owner)
        easy.set(CURLOPT_WRITEFUNCTION, callback: { buffer, size, count, owner in
            Unmanaged<Download>.fromOpaque(owner!).takeUnretainedValue().receive(buffer, size * count)
        })
        easy.set(CURLOPT_HEADERDATA, pointer: owner)
        easy.set(CURLOPT_HEADERFUNCTION, callback: { buffer, size, count, owner in
            let line = String(decoding: UnsafeRawBufferPointer(start: buffer, count: size * count), as: UTF8.self)
            Unmanaged<Download>.fromOpaque(owner!).takeUnretainedValue().receiveHeader(Substring(line))
            return size * count
        })
    }

    /// The header callback: one line of the response head, CRLF included.
    func receiveHeader(_ line: Substring) {
        head.take(line)
        liveness.heard(at: clock())
    }

    /// Sets the handle up for the next request: resume from the bytes on disk when the
    /// record has a validator for `If-Range` (a valid header value, even in a record
    /// written elsewhere), else from zero.
    func prepareAttempt() {
        attempts += 1
        head = ResponseHead()
        bodyAccepted = false
        attemptFailure = nil
        liveness = Liveness(
            silence: options.stallTimeout, minimumRate: liveness.minimumRate, window: options.speedTime, now: clock())
        easy.clearError()
        let validator = record?.ifRange.flatMap(ResponseHead.validator)
        if !isSegment, sink.offset > 0, validator == nil {
            let kept = sink.offset
            try? restartFromZero()
            if announced { restarted?(kept, "no usable ETag or Last-Modified to resume with") }
        }
        requestedOffset = sink.offset
        attemptStartOffset = sink.offset
        recordedOffset = sink.offset
        // After a CRC mismatch, a cache between here and the origin may hold a stale copy: ask past it.
        var headers = crcRestarts > 0 ? ["Cache-Control: no-cache", "Pragma: no-cache"] : []
        if isSegment {
            // The lead's first request names no version yet: its response does, and the others then ask for it.
            easy.set(CURLOPT_RANGE, "\(requestedOffset)-\(range.upperBound - 1)")
            if let validator { headers.append("If-Range: \(validator)") }
        } else if requestedOffset > 0, let validator {
            easy.set(CURLOPT_RANGE, "\(requestedOffset)-")
            headers.append("If-Range: \(validator)")
        } else {
            easy.set(CURLOPT_RANGE, nil as String?)
        }
        easy.setRequest(route, options: options, extraHeaders: headers)
        easy.set(CURLOPT_MAXFILESIZE_LARGE, offset: entry.size)
    }

    /// Applies this download's part of `--limit-rate` (nil: unlimited), on a running handle too
    /// (libcurl reads the limit at each step). The minimum speed follows: a transfer held down by
    /// the limit is too slow only below a quarter of its share.
    func setRateShare(_ share: Int64?) {
        guard share != rateShare else { return }
        rateShare = share
        easy.set(CURLOPT_MAX_RECV_SPEED_LARGE, offset: share ?? 0)
        liveness.minimumRate = share.map { min(options.speedLimit, $0 / 4) } ?? options.speedLimit
    }

    /// The progress callback's test: no byte for `stallTimeout` seconds, or too few for `speedTime`.
    private func hasStalled() -> Bool {
        guard let verdict = liveness.check(at: clock()) else { return false }
        attemptFailure = .stalled(verdict)
        return true
    }

    /// The write callback: checks the response once, then appends at most the bytes the manifest allows.
    func receive(_ buffer: UnsafeMutablePointer<CChar>?, _ count: Int) -> Int {
        liveness.heard(Int64(count), at: clock())
        if !bodyAccepted {
            if (300..<400).contains(head.status) { return count }  // a redirect's body is not the file
            if let failure = acceptResponse() {
                attemptFailure = failure
                return 0
            }
            bodyAccepted = true
        }
        let allowed = Int(min(Int64(count), range.upperBound - sink.offset))
        if allowed > 0 {
            do {
                try sink.append(UnsafeRawBufferPointer(start: buffer, count: allowed))
            } catch {
                attemptFailure = .local(error)
                return 0
            }
            transferred += Int64(allowed)
            if let group, sink.offset - recordedOffset >= group.recordInterval(range) {
                // A segment's progress lives only in the record: keep it, so that a run killed here
                // continues these bytes. A record that fails to save costs only bytes, never correctness.
                try? group.saveRecord(via: sink)
                recordedOffset = sink.offset
            }
        }
        if allowed < count {
            attemptFailure = .bodyTooLong
            return 0
        }
        return count
    }

    /// Decides whether the body of this response may be written, restarting from zero
    /// when the server answers a resume with the whole file.
    private func acceptResponse() -> AttemptFailure? {
        switch head.status {
        case 206:
            if head.isMultipartRanges, requestedOffset > 0 || isSegment { return .multipartRanges }
            guard requestedOffset > 0 || isSegment, let answered = head.range, answered.first == requestedOffset,
                  answered.last < range.upperBound, answered.total.map({ $0 == entry.size }) ?? true
            else { return .wrongContentRange(head.contentRange ?? "(none)") }
            if !isSegment, let record, !record.sameVersion(as: head) {
                return .otherVersion(asked: record.ifRange ?? "", answered: head.etag ?? head.lastModified ?? "")
            }
        case 200:
            if let group {
                return .oneStream(
                    group.awaitingLead ? "the server ignores Range" : "the file changed on the server between its segments")
            }
            if let length = head.contentLength, length != entry.size { return .wrongLength(length) }
            if sink.offset > 0 {
                let kept = sink.offset
                do { try restartFromZero() } catch { return .local(error) }
                restarted?(kept, "the server sent the whole file, not the range asked for")
            }
        case 400..<600:
            return .httpStatus(head.status)
        default:
            return .unexpectedStatus(head.status)
        }
        if sink.offset == range.lowerBound {
            bytesSource = urlIndex
        } else if bytesSource != urlIndex {
            bytesSource = nil
        }
        if let group { return acceptSegment(of: group) }
        // A 206 without validators continues the version the record already names.
        let keep = head.status == 206 && head.etag == nil && head.lastModified == nil ? record : nil
        let fresh = ResumeRecord(url: currentURL, etag: keep?.etag ?? head.etag, lastModified: keep?.lastModified ?? head.lastModified)
        record = fresh
        if keepsResumeRecord {
            do { try sink.saveResume(fresh.fields) } catch { return .local(error) }
        }
        return nil
    }

    /// Whether the file is large enough to keep a resume record for the next run.
    private var keepsResumeRecord: Bool { entry.size >= options.minimumResumableSize }

    /// A segment's 206: the lead's first one names the version and releases the other segments,
    /// which must name the same one (If-Range asked for it; a server may still answer otherwise).
    private func acceptSegment(of group: SegmentedFile) -> AttemptFailure? {
        if group.awaitingLead {
            let named = ResumeRecord(url: currentURL, etag: head.etag, lastModified: head.lastModified)
            guard named.ifRange != nil else { return .oneStream("no ETag or Last-Modified holds the segments to one version") }
            record = named
            do { try group.release(named) } catch { return .local(error) }
        } else if let record, !record.sameVersion(as: head) {
            return .oneStream("the file changed on the server between its segments")
        }
        do { try group.saveRecord(via: sink) } catch { return .local(error) }
        return nil
    }

    /// Decides what follows a finished attempt.
    func complete(_ code: CURLcode) -> Next {
        let status = head.status
        do throws(SystemError) { try sink.flush() } catch { attemptFailure = .local(error) }
        if case .local(let error)? = attemptFailure {
            return stop(error)
        }
        if case .oneStream(let reason)? = attemptFailure { return .oneStream(reason: reason, fresh: false) }
        if attemptFailure == nil, status >= 400 { attemptFailure = .httpStatus(status) }
        // A segment's connection may fail after its last byte: a retry could only ask for an empty range.
        if isSegment, bodyAccepted, attemptFailure == nil, sink.offset == range.upperBound { return verify() }
        if attemptFailure == nil, code == CURLE_OK {
            if (300..<400).contains(status) { return followRedirect() }
            if !bodyAccepted {  // a response with an empty body never reached the write callback
                attemptFailure = acceptResponse()
                bodyAccepted = attemptFailure == nil
            }
            if bodyAccepted {
                if sink.offset == range.upperBound { return verify() }
                return transient(
                    "the server closed the response after \(sink.offset - range.lowerBound) of \(range.count) bytes", status: status)
            }
        }
        switch attemptFailure {
        case .httpStatus(let status)?:
            if status == 416 { return rangeNotServed("HTTP 416 (range not satisfiable)", status: status) }
            if RetryPolicy.isTransient(status: status) {
                return transient("HTTP \(status)", status: status, retryAfter: head.retryAfterSeconds)
            }
            return nextURL(Failure(isLocal: false, reason: "HTTP \(status)", httpStatus: status, url: currentURL), marks: nil)
        case .wrongContentRange(let range)?:
            return rangeNotServed(
                "a \(isSegment ? "range" : "resume") was answered with Content-Range \(QuotedValue.serverValue(range))", status: status)
        case .multipartRanges?:
            return rangeNotServed(
                "a \(isSegment ? "range" : "resume") was answered with multipart/byteranges", status: status)
        case .otherVersion(let asked, let answered)?:
            try? restartFromZero()
            return transient(
                "a resume of version \(QuotedValue.serverValue(asked)) was answered with version "
                    + "\(QuotedValue.serverValue(answered)) (the server ignores If-Range); restarting from zero",
                status: status)
        case .unexpectedStatus(let status)?:
            return nextURL(
                Failure(isLocal: false, reason: "unexpected HTTP status \(status)", httpStatus: status, url: currentURL), marks: nil)
        case .bodyTooLong?:
            return nextURL(Failure(
                isLocal: false, reason: "the server sent more than the manifest's \(entry.size) bytes", httpStatus: status,
                url: currentURL), marks: .source)
        case .wrongLength(let length)?:
            return nextURL(Failure(
                isLocal: false, reason: "the server announced \(length) bytes, not the manifest's \(entry.size)", httpStatus: status,
                url: currentURL), marks: .source)
        case .stalled(let verdict)?:
            return transient(liveness.describe(verdict), status: status == 0 ? nil : status)
        case .local?, .oneStream?, nil:
            break
        }
        // curl's words may quote the server (a certificate's name, a proxy's answer).
        let detail = easy.describe(code)
        switch code {
        case CURLE_FILESIZE_EXCEEDED:
            return nextURL(Failure(
                isLocal: false, reason: "the server announced more than the manifest's \(entry.size) bytes",
                httpStatus: status, url: currentURL), marks: .source)
        case _ where RetryPolicy.isFinal(code):
            return nextURL(
                Failure(isLocal: false, reason: detail, httpStatus: status == 0 ? nil : status, url: currentURL),
                marks: RetryPolicy.isConnectionLevel(code) ? .host : .source)
        case _ where RetryPolicy.isUnreachable(code) && nextSourceIndex() != nil:
            // Another source has the same bytes: go there now rather than after the backoff of every retry.
            return nextURL(Failure(isLocal: false, reason: detail, url: currentURL), marks: .host)
        default:
            return transient(detail, status: status == 0 ? nil : status, marks: RetryPolicy.isConnectionLevel(code) ? .host : .source)
        }
    }

    /// The whole body is here: proven by size and CRC, it goes to the engine's delegate to be
    /// committed; otherwise the bytes are discarded and fetched from zero from the next source
    /// (marking this one bad when every byte came from it), or, with none left, once more from the
    /// same one, past any cache; a mismatch after that fails the file.
    private func verify() -> Next {
        if let group { return group.segmentComplete() }
        guard let reason = sink.mismatch() else { return .proven }
        crcRestarts += 1
        if rejectBytes(reason: reason, fromThisSourceOnly: bytesSource == urlIndex) {
            do { try restartFromZero() } catch { return stop(error) }
            return .retry(after: 0, reason: "\(reason); downloading again from zero from \(sourceWords)")
        }
        guard crcRestarts <= 1 else {
            sink.discard()
            record = nil
            seen[urlIndex] = "\(reason) after a fresh download"
            return failed(Failure(isLocal: false, reason: "\(reason) after a fresh download", url: currentURL))
        }
        do { try restartFromZero() } catch { return stop(error) }
        return .retry(after: 0, reason: "\(reason); downloading again from zero")
    }

    /// The bytes from the current source failed their proof: the source is marked bad when they all
    /// came from it, and the download moves to the next source it may ask. False when none is left.
    func rejectBytes(reason: String, fromThisSourceOnly: Bool) -> Bool {
        if fromThisSourceOnly { health.markBad(sources[urlIndex], reason: reason, at: currentURL) }
        seen[urlIndex] = reason
        guard let next = nextSourceIndex() else { return false }
        moveTo(next)
        return true
    }

    /// The sink already holds every byte (a run stopped before committing it): prove it without a request.
    func verifyOnDisk() -> Next {
        attempts += 1
        return verify()
    }

    /// Drops the bytes and the record: the next response starts from zero.
    private func restartFromZero() throws(SystemError) {
        if !isSegment { record = nil }  // a segment's record is its file's version, which still holds
        try sink.restart()
    }

    private func followRedirect() -> Next {
        if let refusal = route.follow(easy.string(CURLINFO_REDIRECT_URL)) {  // a refused hop leaves the route as it was
            return nextURL(
                Failure(isLocal: false, reason: refusal.reason, httpStatus: head.status, url: currentURL, remedy: refusal.remedy),
                marks: nil)
        }
        attempts -= 1  // a hop of the same attempt
        return .retry(after: 0, reason: "")
    }

    /// A failure that may pass when asked again: retried after a backoff, until `--retries` are
    /// spent on this source; then it is marked bad (as far as `marks` says) and the next one asked.
    private func transient(
        _ reason: String, status: Int? = nil, retryAfter: Double? = nil, marks scope: SourceHealth.Scope = .source
    ) -> Next {
        if sink.offset - attemptStartOffset >= 1 << 20 { attemptsOnURL = 0 }  // progress earns its retries back
        attemptsOnURL += 1
        guard attemptsOnURL <= options.retries else {
            return nextURL(
                Failure(isLocal: false, reason: reason, httpStatus: status, url: currentURL), marks: scope,
                seenAs: "\(reason) (\(attemptsOnURL) attempts)")
        }
        return .retry(after: RetryPolicy(options).delay(beforeRetry: attemptsOnURL, retryAfter: retryAfter), reason: reason)
    }

    /// A range request (a segment's, or a resume's) was not answered with the range asked: a
    /// segment makes its file one download in one stream from zero, as a 200 to it does (the
    /// server ignores Range); a resume starts from zero, a request without Range.
    private func rangeNotServed(_ reason: String, status: Int) -> Next {
        if isSegment { return .oneStream(reason: reason, fresh: false) }
        try? restartFromZero()
        return transient("\(reason); restarting from zero", status: status)
    }

    /// The current source has failed for good: go on with the next one, or fail the file. `marks`
    /// says what the failure is about beyond this file (nil: this file only, as for a 404).
    private func nextURL(_ failure: Failure, marks scope: SourceHealth.Scope?, seenAs: String? = nil) -> Next {
        if let scope { health.markBad(sources[urlIndex], reason: seenAs ?? failure.reason, scope: scope, at: currentURL) }
        seen[urlIndex] = seenAs ?? failure.reason
        guard let next = nextSourceIndex() else { return failed(failure) }
        moveTo(next)
        if isSegment { return .oneStream(reason: "\(failure.reason); trying \(sourceWords)", fresh: false) }
        return .retry(after: 0, reason: "\(failure.reason); trying \(sourceWords)")
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

    private func moveTo(_ index: Int) {
        urlIndex = index
        asked.insert(index)
        route = RequestRoute(sources[index].url, scope: options.credentialScope)
        attemptsOnURL = 0
    }

    /// Continues where `other`, a segment of the same file, left its sources: the file goes on as
    /// one stream from the same source, with what was seen so far.
    func continueSources(of other: Download) {
        asked = other.asked
        seen = other.seen
        moveTo(other.urlIndex)
    }

    /// The file fails: with more than one source, its failure lists what each one answered (every
    /// one was asked: a source marked bad is put off, never skipped).
    private func failed(_ failure: Failure) -> Next {
        var failure = failure
        if sources.count > 1 {
            failure.sources = sources.indices.map { SourceFailure(url: sources[$0].url, reason: seen[$0] ?? "not asked") }
        }
        return .done(result(.failed(failure)))
    }

    private func stop(_ error: SystemError) -> Next {
        let result = result(.failed(Failure(isLocal: true, reason: error.description)))
        return error.stopsTheRun ? .stopRun(result) : .done(result)
    }

    package func result(_ outcome: FileResult.Outcome) -> FileResult {
        let isCommitted = outcome == .committed
        return FileResult(
            path: entry.path, size: entry.size, action: action, outcome: outcome, attempts: group?.attempts ?? attempts,
            transferred: group?.transferred ?? transferred, source: isCommitted ? sources[urlIndex] : nil,
            isFromMirror: isCommitted && urlIndex > 0, failedSources: failedOrigins,
            reusedBytes: isCommitted ? group?.reused ?? 0 : 0)
    }

    /// The origins of the sources that failed this file, each once, in the order asked.
    private var failedOrigins: [String] {
        var origins: [String] = []
        for index in seen.keys.sorted() where !origins.contains(sources[index].origin) { origins.append(sources[index].origin) }
        return origins
    }

    /// Keeps the bytes for the next run (the record says which file and version
    /// they are), or removes them when there are none or the file keeps no record.
    func suspend() {
        if let group, !group.awaitingLead {
            try? group.saveRecord(via: sink, flushing: true)
        } else if group?.reused != nil {
            // A delta before its first response: its partial and record stay as they were assembled.
        } else if sink.offset == 0 || !keepsResumeRecord {
            sink.discard()
            record = nil
        } else if let record {
            try? sink.flush()  // the bytes held back too: they are kept for the next run
            try? sink.saveResume(record.fields)
        }
    }

}
