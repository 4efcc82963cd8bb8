package import AssetSyncModel
import AssetSyncSystem
import CCurl
import CCurlShim
import Glibc

/// One file's download, one segment of a file fetched in segments (`SegmentedFile`), or a
/// document's fetch (`TransferKind.document`): the binding of its `DownloadDecisions` to an easy
/// handle and a sink. The handle's callbacks reach this owner through their user data, tell the
/// decisions what arrived and do what they say: set the request, write to the sink, drop or keep
/// bytes. The handle is lent by the engine's `CurlEasyPool` for each attempt, from `prepareAttempt`
/// until `complete`. Lives on the transfer thread, but for a segment's callbacks, which may run on a
/// second thread (`SplitMultiplexer`) while the engine keeps off it.
package final class Download {
    package let sink: any DownloadSink
    private let handles: CurlEasyPool
    /// The handle lent for the attempt under way; nil between attempts.
    private var lent: CurlEasy?
    private let options: TransferOptions
    private let clock: () -> Double
    private var decisions: DownloadDecisions
    /// The file this download is a segment of; nil for a file in one stream.
    private(set) weak var group: SegmentedFile?
    /// This segment's offset when its file's record last noted it.
    private var recordedOffset: Int64 = 0
    /// How far this segment's bytes were written when it last saved its file's record: what saves
    /// by the file's other segments name for it (`SegmentedFile.saveRecord`, with its lock held).
    var writtenInRecord: Int64
    /// Whether the reporter has heard of this download starting.
    var announced = false
    /// Told when a resume becomes a download from zero with no retry to say so (the bytes dropped).
    var restarted: ((_ discarded: Int64, _ reason: String) -> Void)?
    /// Monotonic time before which the next attempt must not start.
    var notBefore = 0.0
    /// Body bytes received by this run, across attempts (discarded ones included).
    private(set) var transferred: Int64 = 0
    /// This download's part of `--limit-rate` while it runs (nil: unlimited).
    private var rateShare: Int64?

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

    /// The file, kept apart from `decisions`, which the thread receiving changes while the engine's reads this.
    package let entry: ManifestEntry
    /// The bytes this download fetches: the file's, or its segment's.
    let range: Range<Int64>
    var urlIndex: Int { decisions.urlIndex }
    var bytesSource: Int? { decisions.bytesSource }
    var currentURL: String { decisions.currentURL }
    var attempts: Int { decisions.attempts }
    /// A document's fetch was answered 304 to its conditional request: the copy held is current.
    package var keepsHeldCopy: Bool { decisions.keepsHeldCopy }

    /// The sink of the whole file: this download's own, or the segmented file's.
    package var fileSink: any DownloadSink { group?.file ?? sink }

    /// Continues the count of what came before this download: the segments it replaces.
    func carry(attempts: Int, transferred: Int64, crcRestarts: Int) {
        decisions.attempts = attempts
        self.transferred = transferred
        decisions.crcRestarts = crcRestarts
    }

    /// - Parameters:
    ///   - clock: monotonic seconds, for stall checks.
    ///   - segment: the file and the range this download fetches when it is one of its segments.
    ///   - handles: where each attempt's easy handle comes from.
    init(
        entry: ManifestEntry, action: SyncPlan.Action, sources: [DownloadSource], kind: TransferKind = .file, health: SourceHealth,
        sink: any DownloadSink, options: TransferOptions, handles: CurlEasyPool, clock: @escaping () -> Double,
        segment: (file: SegmentedFile, range: Range<Int64>)? = nil
    ) {
        self.clock = clock
        self.handles = handles
        self.sink = sink
        self.options = options
        group = segment?.file
        self.entry = entry
        range = segment?.range ?? 0..<entry.size
        writtenInRecord = sink.writtenOffset
        decisions = DownloadDecisions(
            entry: entry, action: action, sources: sources, kind: kind, health: health, options: options,
            range: range, isSegment: segment != nil,
            record: segment.map(\.file.record) ?? sink.resumeFields.flatMap(ResumeRecord.init(fields:)))
    }

    /// The handle of the attempt under way, on the multi handle while it runs.
    var easy: CurlEasy {
        guard let lent else { preconditionFailure("a download's handle is used only between prepareAttempt and complete") }
        return lent
    }

    /// Borrows a handle for the next attempt, set up to call back this download.
    private func borrowHandle() {
        guard lent == nil else { return }
        let easy = handles.take()
        lent = easy
        rateShare = nil  // the handle has no limit yet
        let owner = Unmanaged.passUnretained(self).toOpaque()
        easy.configureCommon(options)
        // Stalls are timed here from the last byte received: libcurl's low-speed check averages
        // over several seconds and reacted about 6 s late.
        easy.set(CURLOPT_NOPROGRESS, false)
        easy.set(CURLOPT_XFERINFODATA, pointer: owner)
        easy.setProgressCallback { owner, _, _, _, _ in
            let download = Unmanaged<Download>.fromOpaque(owner!).takeUnretainedValue()
            return download.decisions.hasStalled(at: download.clock()) ? 1 : 0
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
        decisions.hear(line, at: clock())
    }

    /// Sets the handle up for the next request, after dropping kept bytes that cannot be resumed.
    func prepareAttempt() {
        borrowHandle()
        decisions.beginAttempt(now: clock())
        easy.clearError()
        if decisions.dropsKeptBytes(offset: sink.offset) {
            let kept = sink.offset
            try? restartFromZero()
            if announced { restarted?(kept, "no usable ETag or Last-Modified to resume with") }
        }
        recordedOffset = sink.offset
        let request = decisions.request(from: sink.offset)
        easy.set(CURLOPT_RANGE, request.range)
        let route = decisions.route
        if route.atFirstOrigin, let store = options.objectStore, store.signs(route.url),
           let signed = store.sign(
               route.url, range: request.range, headers: request.headers + (route.sendsCredentials ? options.headers : []), at: WallClock.now()) {
            // Signed for this attempt: the date, the range and the version asked for change between attempts.
            easy.setRequest(route, options: options, extraHeaders: request.headers + signed.headers, url: signed.url)
            decisions.signedAttempt = true
        } else {
            easy.setRequest(route, options: options, extraHeaders: request.headers)
        }
        // A document's bound is on the bytes written, not on what a response announces (0: no limit):
        // a 404 whose page is longer than a signature's limit still says that there is no signature.
        easy.set(CURLOPT_MAXFILESIZE_LARGE, offset: decisions.kind == .file ? entry.size : 0)
    }

    /// Applies this download's part of `--limit-rate` (nil: unlimited), on a running handle too
    /// (libcurl reads the limit at each step). The minimum speed follows: a transfer held down by
    /// the limit is too slow only below a quarter of its share.
    func setRateShare(_ share: Int64?) {
        guard share != rateShare else { return }
        rateShare = share
        easy.set(CURLOPT_MAX_RECV_SPEED_LARGE, offset: share ?? 0)
        decisions.liveness.minimumRate = share.map { min(options.speedLimit, $0 / 4) } ?? options.speedLimit
    }

    /// The write callback: has the response judged once, then appends at most the bytes allowed.
    func receive(_ buffer: UnsafeMutablePointer<CChar>?, _ count: Int) -> Int {
        decisions.heard(count, at: clock())
        if !decisions.bodyAccepted {
            if decisions.skipsBody { return count }
            if decisions.keepsRefusal {
                return decisions.keepRefusal(UnsafeRawBufferPointer(start: buffer, count: count)) ? count : 0
            }
            guard acceptResponse() else { return 0 }
        }
        let allowed = decisions.allowed(count, at: sink.offset)
        if allowed > 0 {
            do {
                try sink.append(UnsafeRawBufferPointer(start: buffer, count: allowed))
            } catch {
                decisions.refuse(.local(error))
                return 0
            }
            transferred += Int64(allowed)
            if let group, sink.offset - recordedOffset >= group.recordInterval(range) {
                // A segment's progress lives only in the record: keep it, so that a run killed here
                // continues these bytes. A record that fails to save costs only bytes, never correctness.
                try? group.saveRecord(from: self)
                recordedOffset = sink.offset
            }
        }
        if allowed < count {
            decisions.refuse(.bodyTooLong)
            return 0
        }
        return count
    }

    /// Does what the decisions say of the response's head; false when its body is refused.
    private func acceptResponse() -> Bool {
        do throws(SystemError) {
            switch decisions.accept(offset: sink.offset, awaitingLead: group?.awaitingLead ?? false) {
            case .refuse:
                return false
            case .write(let restart, let save):
                if restart {
                    let kept = sink.offset
                    try sink.restart()
                    restarted?(kept, "the server sent the whole file, not the range asked for")
                }
                if let save { try sink.saveResume(save.fields) }
            case .writeSegment(let release):
                guard let group else { return true }
                if let release { try group.release(release) }
                try group.saveRecord(from: self)
            }
            return true
        } catch {
            decisions.refuse(.local(error))
            return false
        }
    }

    /// Decides what follows a finished attempt.
    func complete(_ code: CURLcode) -> Next {
        do throws(SystemError) { try sink.flush() } catch { decisions.refuse(.local(error)) }
        let end = TransportEnd(code)
        if decisions.awaitsAcceptance(after: end) { _ = acceptResponse() }
        // curl's words may quote the server (a certificate's name, a proxy's answer).
        let detail = end == .ok ? "" : easy.describe(code)
        let location = decisions.skipsBody ? easy.string(CURLINFO_REDIRECT_URL) : nil
        // The attempt is over and off the multi handle: its handle goes back for the next download.
        if let lent { handles.give(lent) }
        lent = nil
        return act(sharingRetries { $0.conclude(end, detail: detail, offset: sink.offset, location: location) })
    }

    /// Runs `decide` on the decisions with the retries on the current URL its file counts, for a segment.
    private func sharingRetries<T>(_ decide: (inout DownloadDecisions) -> T) -> T {
        if let group { decisions.attemptsOnURL = group.attemptsOnURL }
        defer { if let group { group.attemptsOnURL = decisions.attemptsOnURL } }
        return decide(&decisions)
    }

    /// Drops or keeps the bytes as `outcome` says, then takes its step.
    private func act(_ outcome: DownloadDecisions.Outcome) -> Next {
        switch outcome.drop {
        case .keep: break
        case .restart: try? restartFromZero()
        case .restartOrStop:
            do { try restartFromZero() } catch { return stop(error) }
        case .discard: sink.discard()
        }
        switch outcome.step {
        case .retry(let after, let reason): return .retry(after: after, reason: reason)
        case .prove: return verify()
        case .oneStream(let reason): return .oneStream(reason: reason, fresh: false)
        case .fail(let failure): return .done(result(.failed(failure)))
        case .stop(let error): return stop(error)
        }
    }

    /// The whole body is here: proven by size and CRC, it goes to the engine's delegate to be
    /// committed; a segment's proof waits for its file's other segments.
    private func verify() -> Next {
        if let group { return group.segmentComplete() }
        guard let reason = sink.mismatch() else { return .proven }
        return act(decisions.rejectProof(reason))
    }

    /// The bytes from the current source failed their proof; false when no source is left (`DownloadDecisions.rejectBytes`).
    func rejectBytes(reason: String, fromThisSourceOnly: Bool) -> Bool {
        sharingRetries { $0.rejectBytes(reason: reason, fromThisSourceOnly: fromThisSourceOnly) }
    }

    /// The sink already holds every byte (a run stopped before committing it): prove it without a request.
    func verifyOnDisk() -> Next {
        decisions.attempts += 1
        return verify()
    }

    /// Drops the bytes and the record: the next response starts from zero.
    private func restartFromZero() throws(SystemError) {
        decisions.dropVersion()
        try sink.restart()
    }

    /// Continues where `other`, a segment of the same file, left its sources: the file goes on as
    /// one stream from the same source, with what was seen so far.
    func continueSources(of other: Download) {
        sharingRetries { $0.continueSources(of: other.decisions) }
    }

    private func stop(_ error: SystemError) -> Next {
        let result = result(.failed(Failure(isLocal: true, reason: error.description)))
        return error.stopsTheRun ? .stopRun(result) : .done(result)
    }

    package func result(_ outcome: FileResult.Outcome) -> FileResult {
        decisions.result(
            outcome, attempts: group?.attempts ?? attempts, transferred: group?.transferred ?? transferred, reused: group?.reused ?? 0)
    }

    /// Keeps the bytes for the next run (the record says which file and version
    /// they are), or removes them when there are none or the file keeps no record.
    func suspend() {
        if let group, !group.awaitingLead {
            try? group.saveFinalRecord(via: sink)
        } else if group?.reused != nil {
            // A delta before its first response: its partial and record stay as they were assembled.
        } else if sink.offset == 0 || !decisions.keepsResumeRecord {
            sink.discard()
            decisions.dropVersion()
        } else if let record = decisions.record {
            try? sink.flush()  // the bytes held back too: they are kept for the next run
            try? sink.saveResume(record.fields)
        }
    }
}
