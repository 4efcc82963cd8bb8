import AssetSyncModel
import AssetSyncSystem

/// The decisions of one download, or one segment of a file (`SegmentedFile`), without libcurl or
/// the sink: which source to ask and what to ask it, whether a response head may be written for
/// the request made, how many of its bytes may be, and what follows an attempt. `Download` tells
/// it what happened and does what it says; it changes nothing but itself and the run's
/// `SourceHealth`. A document (`TransferKind.document`: a remote manifest, its signature) goes
/// through the same decisions, with its size only a bound and no checksum to prove it.
///
/// Sources go in the manifest's order, those the run's `SourceHealth` marked bad put off until the
/// others have failed; then they are asked too, in order, before the file fails: a mark is what
/// other files (or this file at another source on the same host) saw, and a file failed at a
/// source it never asked would be a guess.
struct DownloadDecisions {
    let entry: ManifestEntry
    let action: SyncPlan.Action
    let sources: [DownloadSource]
    /// The run's table of bad sources.
    let health: SourceHealth
    /// The bytes of the file this download fetches: all of them, or one segment's.
    let range: Range<Int64>
    let isSegment: Bool
    let kind: TransferKind
    let options: TransferOptions

    var urlIndex: Int
    /// The sources asked so far (or being asked), by their index in `sources`.
    var asked: Set<Int>
    /// What each source tried answered, by its index in `sources`, for the file's failure.
    var seen: [Int: String] = [:]
    /// The source every byte in the sink came from in this run; nil when the bytes came from an
    /// earlier run or from more than one source, so that a mismatch can blame none of them.
    private(set) var bytesSource: Int?
    /// The current URL, after the redirects followed from the mirror being tried.
    var route: RequestRoute
    var currentURL: String { route.url }
    /// Attempts on the current URL that count against `--retries` (a segment's binding shares them with its file).
    var attemptsOnURL = 0
    var attempts = 0
    var crcRestarts = 0
    /// Which version of the file the bytes in the sink are; nil while they start from zero.
    var record: ResumeRecord?

    // The current attempt.
    private(set) var head = ResponseHead()
    private(set) var bodyAccepted = false
    var failure: AttemptFailure?
    private var requestedOffset: Int64 = 0
    /// The attempt asked for a document only if it changed from the copy held.
    var askedConditionally = false
    /// A document's answer was 304 to a conditional request: the copy held is current.
    var keepsHeldCopy = false
    var attemptStartOffset: Int64 = 0
    var liveness: Liveness
    /// The attempt was signed for an object store (`TransferOptions.objectStore`).
    var signedAttempt = false
    /// The start of a signed attempt's 403 body, which says what the store refused (`S3Refusal`).
    private(set) var refusalBody: [UInt8] = []

    /// What went wrong with one attempt, noted while its response arrives (in a callback) and
    /// acted on when the attempt ends (`conclude`).
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

    /// The request an attempt makes: its `Range` header's value (nil: the whole file) and the headers added to the user's.
    struct Request: Equatable {
        var range: String?
        var headers: [String]
    }

    /// What may be done with a response's body, decided on its head.
    enum HeadVerdict: Equatable {
        case refuse(AttemptFailure)
        /// The body is the file's bytes: after dropping the bytes kept when `restart` (a 200 to a
        /// resume), with `save` kept as the resume record for the next run.
        case write(restart: Bool, save: ResumeRecord?)
        /// The body is the segment's bytes: the file's segments are released for the version
        /// `release` names (the lead's first answer), then the file's record is saved.
        case writeSegment(release: ResumeRecord?)
    }

    init(
        entry: ManifestEntry, action: SyncPlan.Action, sources: [DownloadSource], kind: TransferKind = .file, health: SourceHealth,
        options: TransferOptions, range: Range<Int64>, isSegment: Bool, record: ResumeRecord?
    ) {
        self.entry = entry
        self.action = action
        self.sources = sources
        self.kind = kind
        self.health = health
        self.options = options
        self.range = range
        self.isSegment = isSegment
        self.record = record
        urlIndex = sources.firstIndex { !health.isBad($0) } ?? 0
        asked = [urlIndex]
        route = RequestRoute(sources[urlIndex].url, options: options)
        liveness = Liveness(silence: options.stallTimeout, minimumRate: options.speedLimit, window: options.speedTime, now: 0)
    }

    /// Whether the file is large enough to keep a resume record for the next run; a document's
    /// bytes never resume.
    var keepsResumeRecord: Bool { kind == .file && entry.size >= options.minimumResumableSize }

    /// A new attempt starts at `now`: nothing of the last one's response is kept.
    mutating func beginAttempt(now: Double) {
        attempts += 1
        head = ResponseHead()
        bodyAccepted = false
        failure = nil
        keepsHeldCopy = false
        signedAttempt = false
        refusalBody = []
        liveness = Liveness(silence: options.stallTimeout, minimumRate: liveness.minimumRate, window: options.speedTime, now: now)
    }

    /// Whether the `offset` bytes kept must be dropped before asking: a file in one stream resumes
    /// only when its record has a validator for `If-Range` (a valid header value, even in a record
    /// written elsewhere).
    func dropsKeptBytes(offset: Int64) -> Bool {
        !isSegment && offset > 0 && record?.ifRange.flatMap(ResponseHead.validator) == nil
    }

    /// The request for the bytes from `offset` on: a segment asks for the rest of its range (with
    /// `If-Range` once its file's version is known), a resume for the rest of the file.
    mutating func request(from offset: Int64) -> Request {
        requestedOffset = offset
        attemptStartOffset = offset
        if case .document(let held) = kind { return documentRequest(held: held) }
        let validator = record?.ifRange.flatMap(ResponseHead.validator)
        // After a CRC mismatch, a cache between here and the origin may hold a stale copy: ask past it.
        var headers = crcRestarts > 0 ? ["Cache-Control: no-cache", "Pragma: no-cache"] : []
        if isSegment {
            // The lead's first request names no version yet: its response does, and the others then ask for it.
            if let validator { headers.append("If-Range: \(validator)") }
            return Request(range: "\(offset)-\(range.upperBound - 1)", headers: headers)
        }
        guard offset > 0, let validator else { return Request(range: nil, headers: headers) }
        headers.append("If-Range: \(validator)")
        return Request(range: "\(offset)-", headers: headers)
    }

    /// A document is asked for whole, and only if it changed from the copy held while the request
    /// still goes to the URL the copy came from (the copy's validators are that URL's).
    private mutating func documentRequest(held: CachedManifest?) -> Request {
        var headers: [String] = []
        if let held, currentURL == sources[urlIndex].url {
            if let etag = held.etag { headers.append("If-None-Match: \(etag)") }
            if let modified = held.lastModified { headers.append("If-Modified-Since: \(modified)") }
        }
        askedConditionally = !headers.isEmpty
        return Request(range: nil, headers: headers)
    }

    /// One line of the response head, CRLF included, heard at `now`.
    mutating func hear(_ line: Substring, at now: Double) {
        head.take(line)
        liveness.heard(at: now)
    }

    /// `count` body bytes arrived at `now`.
    mutating func heard(_ count: Int, at now: Double) { liveness.heard(Int64(count), at: now) }

    /// Whether the transfer stalled by `now` (no byte for `stallTimeout` seconds, or too few for `speedTime`).
    mutating func hasStalled(at now: Double) -> Bool {
        guard let verdict = liveness.check(at: now) else { return false }
        failure = .stalled(verdict)
        return true
    }

    /// A redirect's body is not the file: it is skipped.
    var skipsBody: Bool { (300..<400).contains(head.status) }

    /// Whether the body is a signed request's refusal, kept (its start) to say what was refused.
    var keepsRefusal: Bool { signedAttempt && head.status == 403 }

    /// Keeps what fits of `bytes` of a refusal's body; false once the bound is reached.
    mutating func keepRefusal(_ bytes: UnsafeRawBufferPointer) -> Bool {
        refusalBody += bytes.prefix(S3Refusal.bodyLimit - refusalBody.count)
        return refusalBody.count < S3Refusal.bodyLimit
    }

    /// Notes why the attempt's body is refused (a write error, a local error doing what a verdict said).
    mutating func refuse(_ failure: AttemptFailure) {
        self.failure = failure
        bodyAccepted = false
    }

    /// How many of `count` bytes arriving with `offset` bytes held may be written: none past the
    /// range (for a file, the manifest's size), so that a server never decides how much is written.
    func allowed(_ count: Int, at offset: Int64) -> Int { Int(max(0, min(Int64(count), range.upperBound - offset))) }

    /// Decides whether the body of this response may be written, `offset` bytes being held; a 200
    /// to a resume restarts from zero. `awaitingLead`: the segment's file has no version yet.
    mutating func accept(offset: Int64, awaitingLead: Bool) -> HeadVerdict {
        let verdict = judge(offset: offset, awaitingLead: awaitingLead)
        if case .refuse(let failure) = verdict { self.failure = failure } else { bodyAccepted = true }
        return verdict
    }

    private mutating func judge(offset: Int64, awaitingLead: Bool) -> HeadVerdict {
        if kind != .file { return judgeDocument() }
        var restart = false
        switch head.status {
        case 206:
            if head.isMultipartRanges, requestedOffset > 0 || isSegment { return .refuse(.multipartRanges) }
            guard requestedOffset > 0 || isSegment, let answered = head.range, answered.first == requestedOffset,
                  answered.last < range.upperBound, answered.total.map({ $0 == entry.size }) ?? true
            else { return .refuse(.wrongContentRange(head.contentRange ?? "(none)")) }
            if !isSegment, let record, !record.sameVersion(as: head) {
                return .refuse(.otherVersion(asked: record.ifRange ?? "", answered: head.etag ?? head.lastModified ?? ""))
            }
        case 200:
            if isSegment {
                return .refuse(.oneStream(awaitingLead ? "the server ignores Range" : "the file changed on the server between its segments"))
            }
            if let length = head.contentLength, length != entry.size { return .refuse(.wrongLength(length)) }
            if offset > 0 {
                restart = true
                record = nil
            }
        case 400..<600:
            return .refuse(.httpStatus(head.status))
        default:
            return .refuse(.unexpectedStatus(head.status))
        }
        if (restart ? range.lowerBound : offset) == range.lowerBound {
            bytesSource = urlIndex
        } else if bytesSource != urlIndex {
            bytesSource = nil
        }
        if isSegment { return acceptSegment(awaitingLead: awaitingLead) }
        // A 206 without validators continues the version the record already names.
        let keep = head.status == 206 && head.etag == nil && head.lastModified == nil ? record : nil
        let fresh = ResumeRecord(url: currentURL, etag: keep?.etag ?? head.etag, lastModified: keep?.lastModified ?? head.lastModified)
        record = fresh
        return .write(restart: restart, save: keepsResumeRecord ? fresh : nil)
    }

    /// A document's answer: a 200 is its body, whatever length it announces (the write bound is its
    /// limit), and its validators are kept with it for the next conditional request.
    private mutating func judgeDocument() -> HeadVerdict {
        switch head.status {
        case 200: break
        case 400..<600: return .refuse(.httpStatus(head.status))
        default: return .refuse(.unexpectedStatus(head.status))
        }
        bytesSource = urlIndex
        let fresh = ResumeRecord(url: currentURL, etag: head.etag, lastModified: head.lastModified)
        record = fresh
        return .write(restart: false, save: fresh)
    }

    /// A segment's 206: the lead's first one names the version and releases the other segments,
    /// which must name the same one (If-Range asked for it; a server may still answer otherwise).
    private mutating func acceptSegment(awaitingLead: Bool) -> HeadVerdict {
        if awaitingLead {
            let named = ResumeRecord(url: currentURL, etag: head.etag, lastModified: head.lastModified)
            guard named.ifRange != nil else { return .refuse(.oneStream("no ETag or Last-Modified holds the segments to one version")) }
            record = named
            return .writeSegment(release: named)
        }
        if let record, !record.sameVersion(as: head) { return .refuse(.oneStream("the file changed on the server between its segments")) }
        return .writeSegment(release: nil)
    }

    /// Whether an attempt that ended with `end` and no body still needs its head judged by `accept`
    /// (a response with an empty body never reached the write callback).
    func awaitsAcceptance(after end: TransportEnd) -> Bool {
        end == .ok && failure == nil && !bodyAccepted && head.status < 300
    }

    /// The bytes held and the record are dropped: the next response starts from zero (a segment's
    /// record is its file's version, which still holds).
    mutating func dropVersion() {
        if !isSegment { record = nil }
    }
}
