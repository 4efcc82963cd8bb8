import AssetSyncCache
import AssetSyncModel
import AssetSyncSystem
import AssetSyncTransfer
import Glibc

/// The pull's side of the transfer engine: opens each file's partial as the download's sink,
/// commits proven downloads in groups, records what each commit proved for the state index,
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
        clock: @escaping () -> Double
    ) {
        self.clock = clock
        self.root = root
        self.events = events
        partialNames = PartialFile.uniqueNames(requests.map(\.entry.path))
        // Writes past the page cache wait for the disk, not the CPU: more lanes than cores keep it busy.
        // Each running download may hold one buffer partly filled; one more per lane is in flight.
        writers = WriterPool(lanes: Self.writeLanes, buffers: options.jobs + Self.writeLanes, bufferSize: Self.writeBufferSize)
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

    var holdsProven: Bool { !ready.isEmpty }

    /// Small files are committed in groups (one `syncfs` instead of an fsync each); a group
    /// closes at 256 files or 256 MiB, after a quarter of a second, or when nothing else is running.
    func settleProven(idle: Bool, force: Bool) -> (results: [FileResult], stopsTheRun: Bool)? {
        guard !ready.isEmpty else { return nil }
        guard force || idle || ready.count >= 256 || readyBytes >= 256 << 20 || clock() - firstReady >= 0.25
        else { return nil }
        var results: [FileResult] = []
        var stopsTheRun = false
        var group: [(download: Download, partial: PartialFile)] = []
        for download in takeProven() {
            switch partial(of: download) {
            case .success(let partial):
                group.append((download, partial))
            case .failure(let error):
                results.append(download.result(.failed(Failure(isLocal: true, reason: error.description, remedy: error.remedy))))
                if error.stopsTheRun { stopsTheRun = true }
            }
        }
        let errors = Committer.commit(group.map(\.partial))
        for ((download, partial), error) in zip(group, errors) {
            guard let error else {
                var status = stat()
                if fstat(partial.fd, &status) == 0 {
                    proofs[download.entry.path] = StateIndex.Record(LocalItem(status), crc32: download.entry.crc32, sha256: download.entry.sha256)
                }
                results.append(download.result(.committed))
                continue
            }
            results.append(download.result(.failed(Failure(isLocal: true, reason: error.description, remedy: error.remedy))))
            if error.stopsTheRun { stopsTheRun = true }
        }
        return (results, stopsTheRun)
    }

    func takeProven() -> [Download] {
        defer {
            ready.removeAll()
            readyBytes = 0
        }
        return ready
    }

    /// The partial holding `download`'s bytes: the one opened as its sink, or the one a lane wrote for a
    /// small file (waiting for that write), or why that write failed.
    private func partial(of download: Download) -> Result<PartialFile, CacheError> {
        if let small = download.fileSink as? SmallFileSink { return small.partial() }
        return .success(partials[ObjectIdentifier(download.fileSink)]!)
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
