/// Work handed to other threads and not yet done, with the first error it met: `wait()` returns
/// once every piece begun has ended.
///
/// `@unchecked Sendable`: every variable is read and written inside `monitor.locked`.
package final class PendingWork<Failure: Error>: @unchecked Sendable {
    private let monitor = Monitor()
    private var running = 0
    private var failure: Failure?

    package init() {}

    /// The first error met so far, if any: later pieces need not run.
    package var hasFailed: Bool { monitor.locked { failure != nil } }

    /// Whether a piece begun has not yet ended.
    package var isRunning: Bool { monitor.locked { running > 0 } }

    package func begin() { monitor.locked { running += 1 } }

    /// Ends one piece begun with `begin()`, keeping `error` when it is the first.
    package func end(_ error: Failure? = nil) {
        monitor.locked {
            running -= 1
            if failure == nil { failure = error }
            monitor.broadcast()
        }
    }

    /// Waits for every piece begun, then returns the first error met (kept until `reset()`).
    package func wait() -> Failure? {
        monitor.locked {
            while running > 0 { monitor.wait() }
            return failure
        }
    }

    /// Waits for every piece begun and forgets the error met: what follows starts afresh.
    package func reset() {
        monitor.locked {
            while running > 0 { monitor.wait() }
            failure = nil
        }
    }
}
