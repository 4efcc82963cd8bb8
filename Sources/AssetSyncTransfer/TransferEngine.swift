package import AssetSyncModel
import AssetSyncSystem
import CCurl
import CCurlShim
import Glibc

/// Runs downloads on libcurl's multi interface from the one thread that
/// calls `run` (segments of large files also on a second thread, `SplitMultiplexer`): up to `jobs` at a time, connections reused across files,
/// retries scheduled without blocking the others, and a wake-up descriptor
/// that stops everything (keeping the bytes received) when a stop is requested.
/// A large file runs as several segments (`SegmentedFile`), each a download that counts
/// as one of the jobs, while the delegate hears of one file.
/// Sinks, commits and events belong to the delegate.
package final class TransferEngine {
    /// One file to download, as the engine's caller describes it.
    package struct Request: Sendable {
        package var entry: ManifestEntry
        package var action: SyncPlan.Action
        /// Where the file may come from, in the order to try (`Manifest.sources(of:)`).
        package var sources: [DownloadSource]
        /// A manifest entry's file, or a document bounded by `entry.size` (a remote manifest).
        package var kind: TransferKind

        package init(entry: ManifestEntry, action: SyncPlan.Action, sources: [DownloadSource], kind: TransferKind = .file) {
            self.entry = entry
            self.action = action
            self.sources = sources
            self.kind = kind
        }
    }

    /// How a run ended.
    package enum Ending: Equatable {
        case finished
        case interrupted
        /// A local error (disk full, I/O) made every other transfer pointless.
        case stoppedByLocalError
    }

    private let multi: any TransferMultiplexer
    private let options: TransferOptions
    private let delegate: any TransferEngineDelegate
    /// Monotonic seconds: when retries are due, and how often progress is told.
    private let clock: () -> Double
    private let shouldStop: () -> Bool
    private let wakeFD: Int32
    private var pending: ArraySlice<Request>
    private var waiting: [Download] = []
    private var active: [ObjectIdentifier: Download] = [:]
    /// Transfers libcurl finished whose last bytes a writer lane is still writing, with libcurl's result:
    /// each is decided once its writes end, so that this thread receives for the others meanwhile.
    private var flushing: [(download: Download, code: CURLcode)] = []
    /// Files fetched in segments, by path, until their result is told.
    private var segmented: [String: SegmentedFile] = [:]
    /// A local error made every other transfer pointless.
    private var stopRequested = false
    /// The sources found bad in this run, which later files skip.
    private let health = SourceHealth()
    private let handles = CurlEasyPool()
    package private(set) var results: [FileResult] = []
    /// For progress: downloads in all, bytes in all, and the sizes of those finished.
    private let filesTotal: Int
    private let bytesTotal: Int64
    private var bytesFinished: Int64 = 0
    private var lastProgress = -Double.infinity

    /// - Parameters:
    ///   - wakeFD: a descriptor that becomes readable when `shouldStop` may have turned true.
    package convenience init(
        requests: [Request], options: TransferOptions, delegate: any TransferEngineDelegate,
        wakeFD: Int32, shouldStop: @escaping () -> Bool, clock: @escaping () -> Double = MonotonicClock.now
    ) {
        self.init(
            requests: requests, options: options, delegate: delegate, wakeFD: wakeFD, shouldStop: shouldStop, clock: clock,
            multiplexer: { [steps = delegate.steps] jobs in Self.curlMultiplexer(jobs: jobs, requests: requests, options: options, steps: steps) })
    }

    /// libcurl's multi handle for `jobs` transfers at once; or two, on two threads, when a file comes
    /// in segments and `transferThreads` allows a second (not under `--limit-rate`, whose shares are
    /// set on running transfers from this thread).
    private static func curlMultiplexer(jobs: Int, requests: [Request], options: TransferOptions, steps: StepTimes) -> any TransferMultiplexer {
        if options.transferThreads > 1, options.limitRate == nil,
           requests.contains(where: { SegmentedFile.transfers(of: $0, options: options) > 1 }),
           let split = SplitMultiplexer(maximumHostConnections: jobs, steps: steps) {
            return split
        }
        return CurlMultiplexer(maximumHostConnections: jobs)
    }

    /// - Parameter multiplexer: what runs the transfers, made for the number of jobs that run at once.
    init(
        requests: [Request], options: TransferOptions, delegate: any TransferEngineDelegate, wakeFD: Int32,
        shouldStop: @escaping () -> Bool, clock: @escaping () -> Double, multiplexer: (_ jobs: Int) -> any TransferMultiplexer
    ) {
        self.clock = clock
        var options = options
        let transfers = requests.lazy.map { SegmentedFile.transfers(of: $0, options: options) }.reduce(0, +)
        options.jobs = max(1, min(options.jobs, transfers))
        if let rate = options.limitRate {
            // libcurl keeps a limited transfer's average by reading a burst, then pausing: not a stall.
            let smallestShare = Self.rateShare(of: rate, among: options.jobs)
            options.stallTimeout = max(options.stallTimeout, Int(Double(8 << 20) / Double(smallestShare)) + 1)
            // A window of the minimum speed then spans at least two bursts and their pauses.
            options.speedTime = max(options.speedTime, 2 * options.stallTimeout)
        }
        self.options = options
        self.delegate = delegate
        self.wakeFD = wakeFD
        self.shouldStop = shouldStop
        pending = requests[...]
        filesTotal = requests.count
        bytesTotal = requests.lazy.map(\.entry.size).saturatingSum()
        multi = multiplexer(options.jobs)
    }

    deinit {
        for download in active.values { multi.remove(download) }
        active.removeAll()
        waiting.removeAll()
    }

    /// Transfers everything, or until stopped; results arrive in `results` and at the delegate.
    package func run() -> Ending {
        while true {
            if shouldStop() { return stopAll(.interrupted) }
            startDue()
            if stopRequested { return stopAll(.stoppedByLocalError) }
            if active.isEmpty, waiting.isEmpty, pending.isEmpty, flushing.isEmpty, !delegate.holdsProven { return .finished }
            perform()
            reportProgress()
            if let ending = collectFinished() { return ending }
            if active.isEmpty, waiting.isEmpty { continue }
            delegate.steps.measure(.networkWaits) { multi.poll(wakeFD: wakeFD, timeout: pollTimeout()) }
        }
    }

    /// libcurl's work, counted as receiving less the waits for buffers and writes within it.
    private func perform() {
        delegate.steps.measure(.receiving, lessTimeIn: .bufferWaits, .writeWaits) { multi.perform() }
    }

    /// What a finished transfer's result means, its proof counted as verifying less the write waits within it.
    private func complete(_ download: Download, _ code: CURLcode) -> Download.Next {
        delegate.steps.measure(.verifying, lessTimeIn: .writeWaits) { download.complete(code) }
    }

    /// Starts downloads whose time has come, retries first, up to `jobs` at once.
    private func startDue() {
        takeReleasedSegments()
        let now = clock()
        while active.count < options.jobs {
            if let index = waiting.firstIndex(where: { $0.notBefore <= now }) {
                start(waiting.remove(at: index))
            } else if waiting.count < options.jobs * 4, let request = pending.popFirst() {
                guard let download = makeDownload(request) else { continue }
                start(download)
                // A resumed file's lead may hold all its bytes already and start no request: its
                // other segments must not wait for a transfer that will never end.
                takeReleasedSegments()
            } else {
                return
            }
        }
    }

    /// Schedules the segments that segmented files have made since the last look.
    private func takeReleasedSegments() {
        for file in segmented.values where !file.released.isEmpty {
            waiting += file.released
            file.released = []
        }
    }

    private func makeDownload(_ request: Request) -> Download? {
        do throws(Failure) {
            let sink = try delegate.openSink(for: request)
            do throws(SystemError) {
                if let file = try SegmentedFile(request: request, sink: sink, options: options, health: health, handles: handles, clock: clock) {
                    segmented[request.entry.path] = file
                    return file.lead
                }
            } catch {
                throw Failure(isLocal: true, reason: error.description)
            }
            return Download(
                entry: request.entry, action: request.action, sources: request.sources, kind: request.kind, health: health, sink: sink,
                options: options, handles: handles, clock: clock)
        } catch {
            finish(FileResult(path: request.entry.path, size: request.entry.size, action: request.action, outcome: .failed(error)))
            return nil
        }
    }

    private func start(_ download: Download) {
        if download.sink.offset == download.range.upperBound, download.attempts == 0 {
            // An earlier run stopped between the last byte and the commit (of the file or of this
            // segment): prove what is on disk.
            multi.exclusive { settle(download, download.verifyOnDisk()) }
            return
        }
        download.prepareAttempt()
        if !download.announced {
            download.announced = true
            delegate.started(
                path: download.entry.path, size: download.entry.size,
                resumingAt: segmented[download.entry.path]?.done ?? download.sink.offset, url: download.currentURL)
            let path = download.entry.path
            download.restarted = { [weak delegate] discarded, reason in delegate?.restarted(path: path, discarded: discarded, reason: reason) }
        }
        active[ObjectIdentifier(download)] = download
        shareRate()
        multi.add(download)
    }

    /// `--limit-rate` caps the total: each running transfer gets an equal part, given again
    /// whenever one starts or ends, so that the last one running gets the whole limit.
    private func shareRate() {
        guard let rate = options.limitRate, !active.isEmpty else { return }
        let share = Self.rateShare(of: rate, among: active.count)
        for download in active.values { download.setRateShare(share) }
    }

    /// One transfer's part of `rate` bytes a second when `running` transfers share it (at least 1).
    static func rateShare(of rate: Int64, among running: Int) -> Int64 {
        max(1, rate / Int64(max(1, running)))
    }

    /// Takes every finished transfer off the multi handle and decides what follows: at once when its
    /// bytes are all written, else once they are (`flushing`), waiting for them only when nothing else runs.
    private func collectFinished() -> Ending? {
        while let (finished, code) = multi.nextFinished() {
            guard let download = active.removeValue(forKey: ObjectIdentifier(finished)) else { continue }
            multi.remove(download)
            shareRate()
            flushing.append((download, code))
        }
        var index = 0
        while index < flushing.count {
            let (download, code) = flushing[index]
            guard active.isEmpty || download.sink.beginFlush() else {
                index += 1
                continue
            }
            flushing.remove(at: index)
            multi.exclusive { settle(download, complete(download, code)) }
            if stopRequested { return stopAll(.stoppedByLocalError) }
        }
        return settleProven(force: false)
    }

    /// Acts on what a download said comes next.
    private func settle(_ download: Download, _ next: Download.Next) {
        switch next {
        case .retry(let delay, let reason):
            if !reason.isEmpty { delegate.retrying(path: download.entry.path, reason: reason, after: delay) }
            download.notBefore = clock() + delay
            download.sink.setAside()
            waiting.append(download)
        case .proven:
            endSegments(of: download.entry.path)
            delegate.proven(download)
        case .done(let result):
            if case .failed = result.outcome {
                // The other segments first, off the transfers: a segment's suspension flushes them all.
                let others = endSegments(of: download.entry.path)
                download.suspend()
                others.forEach { $0.suspend() }
            }
            finish(result)
        case .stopRun(let result):
            // The other segments keep their bytes for the next run; the file's result is told once.
            endSegments(of: download.entry.path).forEach { $0.suspend() }
            finish(result)
            stopRequested = true
        case .segmentDone:
            break
        case .oneStream(let reason, let fresh):
            guard let file = segmented[download.entry.path] else { return }
            endSegments(of: download.entry.path)
            segmented[download.entry.path] = nil
            do {
                let single = try file.oneStream(continuing: download, afterMismatch: fresh ? reason : nil)
                single.restarted = file.lead.restarted
                delegate.retrying(path: download.entry.path, reason: "\(reason); downloading as one stream", after: 0)
                single.notBefore = clock()
                waiting.append(single)
            } catch {
                download.suspend()
                settle(download, .stopRun(download.result(.failed(Failure(isLocal: true, reason: error.description)))))
            }
        }
    }

    /// Takes a segmented file's segments off the transfers (its result is about to be told, or it
    /// becomes one stream) and returns those it took.
    @discardableResult
    private func endSegments(of path: String) -> [Download] {
        guard let file = segmented[path], !file.ended else { return [] }
        file.ended = true
        let members = Set(file.members.map(ObjectIdentifier.init))
        var taken: [Download] = []
        for id in members {
            guard let download = active.removeValue(forKey: id) else { continue }
            multi.remove(download)
            taken.append(download)
        }
        taken += waiting.filter { members.contains(ObjectIdentifier($0)) }
        waiting.removeAll { members.contains(ObjectIdentifier($0)) }
        taken += flushing.lazy.map(\.download).filter { members.contains(ObjectIdentifier($0)) }
        flushing.removeAll { members.contains(ObjectIdentifier($0.download)) }
        shareRate()
        return taken
    }

    /// Has the delegate commit what waits when a group is due (or, with `force`, whatever waits);
    /// nil unless a local error then stops the run.
    private func settleProven(force: Bool) -> Ending? {
        guard let settled = delegate.settleProven(idle: isIdle, force: force) else { return nil }
        for result in settled.results { finish(result) }
        return settled.stopsTheRun ? stopAll(.stoppedByLocalError) : nil
    }

    /// Whether nothing runs and nothing could start now: only then is a small group worth committing
    /// early. Transfers that all finish in one step are replaced at once, and their files wait for the group.
    private var isIdle: Bool {
        guard active.isEmpty, pending.isEmpty, flushing.isEmpty else { return false }
        let now = clock()
        return !waiting.contains { $0.notBefore <= now }
    }

    /// Stops every transfer, keeping each one's bytes and record for the next run;
    /// when interrupted, downloads received in full are proven and committed first.
    private func stopAll(_ ending: Ending) -> Ending {
        multi.exclusive { stopEverything(ending) }
    }

    /// `stopAll`'s work, while no callback runs on another thread.
    private func stopEverything(_ ending: Ending) -> Ending {
        if ending == .interrupted {
            for (download, code) in flushing { settle(download, complete(download, code)) }
            flushing.removeAll()
            if let stopped = settleProven(force: true) { return stopped }
        }
        let (committed, uncommitted) = delegate.takeProven()
        for result in committed { finish(result) }
        for download in uncommitted {
            download.suspend()
            finish(download.result(.interrupted))
        }
        // Every transfer off the multi handles before any is suspended: a segment's suspension flushes its file's others.
        for download in active.values { multi.remove(download) }
        let stopped = waiting + flushing.map(\.download)
        for download in Array(active.values) + stopped { download.suspend() }
        // A segmented file's segments are suspended above; its result is told once.
        var told = Set<String>()
        for download in Array(active.values) + stopped where told.insert(download.entry.path).inserted {
            finish(download.result(.interrupted))
        }
        active.removeAll()
        waiting.removeAll()
        flushing.removeAll()
        for request in pending {
            finish(FileResult(path: request.entry.path, size: request.entry.size, action: request.action, outcome: .interrupted))
        }
        pending = []
        return ending
    }

    private func finish(_ result: FileResult) {
        segmented[result.path] = nil
        results.append(result)
        bytesFinished = bytesFinished.addingSaturated(result.size)
        delegate.finished(result)
    }

    /// A snapshot for the delegate, at most ten times a second.
    private func reportProgress() {
        let now = clock()
        guard now - lastProgress >= 0.1 else { return }
        lastProgress = now
        let snapshot = multi.exclusive { progressSnapshot() }
        delegate.progress(snapshot)
    }

    /// The files under way and the bytes done.
    private func progressSnapshot() -> ProgressSnapshot {
        // A segmented file is one transfer: the bytes of all its segments.
        var seen = Set<String>()
        let transfers = (Array(active.values) + flushing.map(\.download))
            .filter { seen.insert($0.entry.path).inserted }
            .map {
                ProgressSnapshot.Transfer(
                    path: $0.entry.path, size: $0.entry.size, done: segmented[$0.entry.path]?.done ?? $0.sink.offset)
            }
            .sorted { $0.path.utf8.lexicographicallyPrecedes($1.path.utf8) }
        return ProgressSnapshot(
            filesDone: results.count, filesTotal: filesTotal,
            bytesDone: bytesFinished.addingSaturated(transfers.lazy.map(\.done).saturatingSum()), bytesTotal: bytesTotal, transfers: transfers)
    }

    /// How long the poll may sleep: until the next retry is due, at most one second.
    private func pollTimeout() -> Int32 {
        guard active.isEmpty, let due = waiting.map(\.notBefore).min() else { return 1000 }
        let milliseconds = (due - clock()) * 1000
        return Int32(max(0, min(1000, milliseconds.rounded(.up))))
    }
}
