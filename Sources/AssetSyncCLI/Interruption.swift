package import AssetSync
import Glibc
import Synchronization

/// SIGINT and SIGTERM, turned into a flag and a readable pipe that wakes the
/// transfer loop. A second signal exits at once: partials never sit at a
/// final path, so even that leaves nothing corrupt.
package enum Interruption {
    private static let signals = Atomic<Int>(0)
    private static let writeEnd = Atomic<Int32>(-1)
    private static let readEnd = Atomic<Int32>(-1)

    /// Installs the handlers; call once, early in `main`.
    package static func install() {
        _ = signals.load(ordering: .relaxed)  // initialise the statics here, never first inside the handler
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return }
        for end in ends {
            _ = fcntl(end, F_SETFL, O_NONBLOCK)
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
        }
        readEnd.store(ends[0], ordering: .releasing)
        writeEnd.store(ends[1], ordering: .releasing)
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { _ in
            if Interruption.signals.add(1, ordering: .relaxed).oldValue >= 1 { _exit(130) }
            var byte: UInt8 = 1
            _ = write(Interruption.writeEnd.load(ordering: .relaxed), &byte, 1)
        }
        sigemptyset(&action.sa_mask)
        action.sa_flags = SA_RESTART
        sigaction(SIGINT, &action, nil)
        sigaction(SIGTERM, &action, nil)
    }

    /// The signals as the stop request of a command and the library: readable once a signal
    /// has arrived (-1 before `install`), requested from the first signal on.
    package static var source: StopSource {
        StopSource(wakeFD: readEnd.load(ordering: .acquiring), isRequested: { signals.load(ordering: .relaxed) > 0 })
    }
}
