import AssetSyncSystem
import CCurl

/// The engine's downloads on two libcurl multi handles: the engine thread's own, and a second
/// thread's (`SecondTransferThread`), which takes segments of large files once their file's lead
/// has named the version, as many as the engine thread runs itself. Receiving is the limit of one
/// large file over TLS (the decryption), and its segments then decrypt on two cores. A lead stays
/// on the engine thread, for its first response changes its file (`SegmentedFile.release`); the
/// segments on the second thread touch, in their callbacks, their own download and their file's
/// record (`SegmentedFile.saveRecord`, behind a lock), and the engine touches them inside `exclusive`.
final class SplitMultiplexer: TransferMultiplexer {
    private let own: CurlMultiplexer
    private let second: SecondTransferThread
    /// The downloads handed to the second thread and not yet removed.
    private var onSecond: Set<ObjectIdentifier> = []
    private var ownCount = 0
    /// Whether the engine is inside `exclusive`, holding the second thread's monitor.
    private var holding = false

    /// Nil when no second thread can be had.
    init?(maximumHostConnections connections: Int, steps: StepTimes) {
        guard let second = SecondTransferThread(maximumHostConnections: connections, steps: steps) else { return nil }
        self.second = second
        own = CurlMultiplexer(maximumHostConnections: connections)
    }

    deinit { second.close() }

    func add(_ download: Download) {
        if download.group?.awaitingLead == false, onSecond.count < ownCount {
            onSecond.insert(ObjectIdentifier(download))
            exclusive { second.addHeld(download) }
        } else {
            ownCount += 1
            own.add(download)
        }
    }

    func remove(_ download: Download) {
        guard onSecond.remove(ObjectIdentifier(download)) != nil else {
            ownCount -= 1
            own.remove(download)
            return
        }
        exclusive { second.removeHeld(download) }
    }

    func perform() { own.perform() }

    /// Also wakes when the second thread hands over a finished download; at least ten times a
    /// second while it runs some, whose progress only the engine tells.
    func poll(wakeFD: Int32, timeout: Int32) {
        own.poll(readable: (wakeFD >= 0 ? [wakeFD] : []) + [second.ready.readEnd], timeout: onSecond.isEmpty ? timeout : min(timeout, 100))
    }

    func nextFinished() -> (download: Download, result: CURLcode)? { own.nextFinished() ?? second.nextFinished() }

    /// Runs `body` with the second thread's monitor held: at once when the engine holds it already,
    /// for the engine's steps nest (a stop's commits may stop the run again).
    func exclusive<T>(_ body: () -> T) -> T {
        if holding { return body() }
        return second.monitor.locked {
            holding = true
            defer { holding = false }
            return body()
        }
    }
}
