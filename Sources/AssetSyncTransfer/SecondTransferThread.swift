import AssetSyncModel
import AssetSyncSystem
import CCurl

/// A thread of its own driving libcurl for the downloads the engine hands it (`SplitMultiplexer`),
/// so that receiving them, TLS decryption above all, runs on another core than the engine's own
/// transfers. Its multi handle is its own: the engine asks for adds and removals, which this thread
/// makes, and waits for a removal to be made. libcurl's callbacks run with `monitor` held, so that
/// the engine thread, holding it, touches these downloads only between callbacks; finished
/// downloads leave the multi handle here and wait in `finished`, and `ready` wakes the engine's poll.
///
/// `@unchecked Sendable`: every variable is read and written with `monitor` held, and `multi` is
/// used by this thread alone but for `wakeup`, which libcurl allows from any thread.
final class SecondTransferThread: @unchecked Sendable {
    let monitor = Monitor()
    /// Readable while finished downloads wait for the engine.
    let ready: WakePipe
    private let multi = CurlMulti()
    private let steps: StepTimes
    private var toAdd: [Download] = []
    private var toRemove: [Download] = []
    /// The downloads on the multi handle, by easy handle.
    private var running: [UnsafeMutableRawPointer: Download] = [:]
    private var finished: [(download: Download, result: CURLcode)] = []
    private var closing = false
    private var thread: JoinableThread<Void>?

    /// Nil when no thread or pipe can be had: the engine then runs every transfer itself.
    init?(maximumHostConnections connections: Int, steps: StepTimes) {
        guard let ready = WakePipe() else { return nil }
        self.ready = ready
        self.steps = steps
        multi.setMaximumHostConnections(connections)
        multi.disableMultiplexing()
        guard let thread = JoinableThread({ [self] in loop() }) else { return nil }
        self.thread = thread
    }

    /// Ends the thread once its transfers are removed; the engine removed them before.
    func close() {
        monitor.locked { closing = true }
        multi.wakeup()
        thread?.join()
        thread = nil
    }

    /// With `monitor` held: hands `download`, set up for its attempt, to this thread.
    func addHeld(_ download: Download) {
        toAdd.append(download)
        multi.wakeup()
    }

    /// With `monitor` held: takes `download` off this thread, waiting for the thread to remove it
    /// from the multi handle (the monitor is let go meanwhile). Nothing to do when it finished.
    func removeHeld(_ download: Download) {
        if let index = toAdd.firstIndex(where: { $0 === download }) {
            toAdd.remove(at: index)
            return
        }
        finished.removeAll { $0.download === download }
        guard running.values.contains(where: { $0 === download }) else { return }
        toRemove.append(download)
        multi.wakeup()
        while running.values.contains(where: { $0 === download }) { monitor.wait() }
    }

    /// The next download this thread saw finish, off its multi handle; nil when none waits.
    func nextFinished() -> (download: Download, result: CURLcode)? {
        monitor.locked {
            guard !finished.isEmpty else {
                ready.drain()
                return nil
            }
            return finished.removeFirst()
        }
    }

    /// The thread: makes the changes asked for, moves the transfers on and hands over those that
    /// finished, all with `monitor` held, then waits for the network or a `wakeup` without it.
    private func loop() {
        while monitor.locked({ step() }) {
            multi.poll(readable: [], timeout: 1000)
        }
    }

    /// One turn of the loop, with `monitor` held; false once closing.
    private func step() -> Bool {
        for download in toRemove {
            multi.remove(download.easy)
            running[download.easy.handle] = nil
        }
        if !toRemove.isEmpty { monitor.broadcast() }
        toRemove = []
        if closing {
            for download in running.values { multi.remove(download.easy) }
            running = [:]
            return false
        }
        for download in toAdd {
            running[download.easy.handle] = download
            multi.add(download.easy)
        }
        toAdd = []
        guard !running.isEmpty else { return true }
        steps.measure(.receiving, lessTimeIn: .bufferWaits, .writeWaits) { multi.perform() }
        var handedOver = false
        while let (easy, code) = multi.nextFinished() {
            guard let download = running.removeValue(forKey: easy) else { continue }
            multi.remove(download.easy)
            finished.append((download, code))
            handedOver = true
        }
        if handedOver {
            ready.signal()
            monitor.broadcast()
        }
        return true
    }
}
