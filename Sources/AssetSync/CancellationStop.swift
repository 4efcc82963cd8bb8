import AssetSyncSystem
import Synchronization

/// The stop source of one request: the flag and the descriptor the transfer thread polls, set when
/// the task is cancelled, so that cancelling stops a pull exactly as SIGINT stops the command line's.
final class CancellationStop: Sendable {
    private let requested = Atomic<Bool>(false)
    private let pipe: WakePipe

    /// Nil when no pipe can be made (out of descriptors).
    init?() {
        guard let pipe = WakePipe() else { return nil }
        self.pipe = pipe
    }

    /// The source the layers poll: readable once `request()` ran.
    var source: StopSource { StopSource(wakeFD: pipe.readEnd, isRequested: { [self] in requested.load(ordering: .acquiring) }) }

    /// Asks the work to stop; safe from any thread, any number of times.
    func request() {
        requested.store(true, ordering: .releasing)
        pipe.signal()
    }
}
