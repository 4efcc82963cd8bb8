import AssetSyncCache
import AssetSyncModel
import AssetSyncSystem
import AssetSyncTransfer
import Glibc

/// The pull's side of the transfer engine: opens each file's partial as the download's sink,
/// commits proven downloads in groups on a thread of their own, records what each commit proved for the state index,
/// and passes the engine's events on to the pull's one event sink. Lives on the transfer thread.
final class PullTransfers: TransferEngineDelegate {
    private let root: CacheRoot
    private let events: any PullEvents
    /// Monotonic seconds, for how long a group may wait.
    private let clock: () -> Double
    private let partialNames: [String: String]
    /// Reads a resumed partial to rebuild its CRC; page-aligned: copies into a buffer 16 bytes into a page cost 5x here.
    private let readBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 4096)
    /// Each download's partial, by its sink's identity.
    private var partials: [ObjectIdentifier: PartialFile] = [:]
    /// Proven downloads waiting for the next group commit, and when the first of them arrived.
    private var ready: [Download] = []
    private var readyBytes: Int64 = 0
    private var firstReady = 0.0
    /// Runs the group commits, so that this thread never waits for a sync while there are bytes to receive.
    private let commits = SerialWorker<CommittedGroup>()
    /// Where this run's threads spend their time.
    let steps: StepTimes
    /// State records of the files this run committed.
    private(set) var proofs: [String: StateIndex.Record] = [:]
    /// Writes the bytes of files larger than one of its buffers, on other cores than this thread's.
    private let writers: WriterPool
    /// Files smaller than this keep no resume record and fit in one writer buffer: held there until
    /// proven, then written by a lane (`SmallFileSink`).
    private let smallFileLimit: Int64
    /// Writer threads, and the size of each write: measured on set B of bench/peers (see docs/performance.md).
    static let writeLanes = 4
    static let writeBufferSize = 512 << 10

    init(
        requests: [TransferEngine.Request], root: CacheRoot, options: TransferOptions, events: any PullEvents,
        clock: @escaping () -> Double, steps: StepTimes
    ) {
        self.clock = clock
        self.steps = steps
        self.root = root
        self.events = events
        partialNames = PartialFile.uniqueNames(requests.map(\.entry.path))
        // Writes past the page cache wait for the disk, not the CPU: more lanes than cores keep it busy.
        // Each running download may hold one buffer partly filled; one more per lane is in flight.
        writers = WriterPool(
            lanes: Self.writeLanes, buffers: options.jobs + Self.writeLanes, bufferSize: Self.writeBufferSize, steps: steps)
        smallFileLimit = min(options.minimumResumableSize, Int64(Self.writeBufferSize) + 1)
    }

    deinit { readBuffer.deallocate() }

    func openSink(for request: TransferEngine.Request) throws(Failure) -> any DownloadSink {
        if request.entry.size < smallFileLimit { return SmallFileSink(entry: request.entry, pool: writers) }
        do {
            let partial = try PartialFile(
                root: root, entry: request.entry, name: partialNames[request.entry.path]!, buffer: readBuffer,
                resumable: ResumeRecord.canResume, inSegments: { ResumeRecord(fields: $0)?.segments != nil })
            // A file that fits in one buffer gains nothing from a handoff to another thread.
            let queued = partial.entry.size > Int64(writers.bufferSize)
            if queued { partial.enableDirectWrites() }
            let sink = queued ? QueuedSink.wrapping(partial, pool: writers) : partial
            partials[ObjectIdentifier(sink)] = partial
            return sink
        } catch {
            throw Failure(isLocal: true, reason: error.description, remedy: error.remedy)
        }
    }

    func proven(_ download: Download) {
        if let small = download.fileSink as? SmallFileSink { small.store(in: root, name: partialNames[download.entry.path]!) }
        if ready.isEmpty { firstReady = clock() }
        ready.append(download)
        readyBytes = readyBytes.addingSaturated(download.entry.size)
    }

    var holdsProven: Bool { !ready.isEmpty || commits.unfinished > 0 }

    /// Small files are committed in groups (one `syncfs` instead of an fsync each), on the commit
    /// thread: this thread hands a group over and goes on receiving. A group closes at 256 files or
    /// 256 MiB, after a quarter of a second, or when nothing else is running; while one is being
    /// committed the next one grows, up to twice that, before this thread waits for the disk.
    func settleProven(idle: Bool, force: Bool) -> (results: [FileResult], stopsTheRun: Bool)? {
        var finished = commits.takeFinished()
        let due = !ready.isEmpty
            && (force || idle || ready.count >= 256 || readyBytes >= 256 << 20 || clock() - firstReady >= 0.25)
        if due {
            let behind = ready.count >= 512 || readyBytes >= 512 << 20
            if commits.unfinished > 0, force || idle || behind { finished += waitForCommits() }
            if commits.unfinished == 0 { submitGroup() }
        }
        if force || idle, commits.unfinished > 0 { finished += waitForCommits() }
        return finished.isEmpty ? nil : results(of: finished)
    }

    func takeProven() -> (committed: [FileResult], uncommitted: [Download]) {
        (results(of: waitForCommits()).results, takeReady())
    }

    private func takeReady() -> [Download] {
        defer {
            ready.removeAll()
            readyBytes = 0
        }
        return ready
    }

    private func waitForCommits() -> [CommittedGroup] {
        guard commits.unfinished > 0 else { return [] }
        return steps.measure(.commitWaits) { commits.waitForAll() }
    }

    /// Hands the proven downloads waiting to the commit thread as one group.
    private func submitGroup() {
        let downloads = takeReady()
        let held = downloads.map { download in
            if let small = download.fileSink as? SmallFileSink { return Held.small(small) }
            return Held.partial(partials.removeValue(forKey: ObjectIdentifier(download.fileSink))!)
        }
        commits.submit { [steps] in CommittedGroup(downloads: downloads, outcomes: Self.commit(held, steps: steps)) }
    }

    /// Commits one group, on the commit thread: each file's partial (a small file's once its lane has
    /// written it), then `Committer.commit`, then the state record of each file committed.
    private static func commit(_ held: [Held], steps: StepTimes) -> [Result<StateIndex.Record?, CacheError>] {
        var outcomes = [Result<StateIndex.Record?, CacheError>](repeating: .success(nil), count: held.count)
        var group: [(index: Int, partial: PartialFile)] = []
        for (index, item) in held.enumerated() {
            switch item.partial() {
            case .success(let partial): group.append((index, partial))
            case .failure(let error): outcomes[index] = .failure(error)
            }
        }
        for ((index, partial), error) in zip(group, Committer.commit(group.map(\.partial), steps: steps)) {
            if let error {
                outcomes[index] = .failure(error)
                continue
            }
            var status = stat()
            guard fstat(partial.fd, &status) == 0 else { continue }
            outcomes[index] = .success(StateIndex.Record(LocalItem(status), crc32: partial.entry.crc32, sha256: partial.entry.sha256))
        }
        return outcomes
    }

    /// Each file's result of the groups committed, its state record kept; and whether a local error stops the run.
    private func results(of groups: [CommittedGroup]) -> (results: [FileResult], stopsTheRun: Bool) {
        var results: [FileResult] = []
        var stopsTheRun = false
        for group in groups {
            for (download, outcome) in zip(group.downloads, group.outcomes) {
                switch outcome {
                case .success(let record):
                    if let record { proofs[download.entry.path] = record }
                    results.append(download.result(.committed))
                case .failure(let error):
                    results.append(download.result(.failed(Failure(isLocal: true, reason: error.description, remedy: error.remedy))))
                    if error.stopsTheRun { stopsTheRun = true }
                }
            }
        }
        return (results, stopsTheRun)
    }

    func started(path: String, size: Int64, resumingAt offset: Int64, url: String) {
        events.started(path: path, size: size, resumingAt: offset, url: url)
    }

    func retrying(path: String, reason: String, after delay: Double) { events.retrying(path: path, reason: reason, after: delay) }

    func restarted(path: String, discarded: Int64, reason: String) {
        events.restarted(path: path, discarded: discarded, reason: reason)
    }

    func finished(_ result: FileResult) { events.finished(result) }

    func progress(_ snapshot: ProgressSnapshot) { events.progress(snapshot) }
}

/// A proven download's bytes as the commit thread finds them: in the partial opened as its sink, or in
/// the one a writer lane makes for a small file.
private enum Held {
    case partial(PartialFile)
    case small(SmallFileSink)

    /// The partial, waiting for a small file's write, or why that write failed.
    func partial() -> Result<PartialFile, CacheError> {
        switch self {
        case .partial(let partial): .success(partial)
        case .small(let small): small.partial()
        }
    }
}

/// A group the commit thread committed: its downloads, and for each its state record or why it failed.
private struct CommittedGroup {
    var downloads: [Download]
    var outcomes: [Result<StateIndex.Record?, CacheError>]
}
