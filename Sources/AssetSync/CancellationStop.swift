import AssetSyncSystem
import Glibc
import Synchronization

/// The stop source of one request: the flag and the descriptor the transfer thread polls, set when
/// the task is cancelled, so that cancelling stops a pull exactly as SIGINT stops the command line's.
final class CancellationStop: Sendable {
    private let requested = Atomic<Bool>(false)
    private let readEnd: Int32
    private let writeEnd: Int32

    /// Nil when no pipe can be made (out of descriptors).
    init?() {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return nil }
        for end in ends {
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            _ = fcntl(end, F_SETFL, O_NONBLOCK)
        }
        (readEnd, writeEnd) = (ends[0], ends[1])
    }

    deinit {
        close(readEnd)
        close(writeEnd)
    }

    /// The source the layers poll: readable once `request()` ran.
    var source: StopSource { StopSource(wakeFD: readEnd, isRequested: { [self] in requested.load(ordering: .acquiring) }) }

    /// Asks the work to stop; safe from any thread, any number of times.
    func request() {
        requested.store(true, ordering: .releasing)
        var byte: UInt8 = 1
        _ = write(writeEnd, &byte, 1)
    }
}
