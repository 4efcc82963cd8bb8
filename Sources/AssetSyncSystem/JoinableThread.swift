import Glibc

/// A thread that runs one closure; `join()` waits for it and returns the
/// closure's result. The platform's threads, directly: the library uses no
/// Foundation, and Swift concurrency's cooperative pool is not meant for
/// long, blocking work such as parsing a file.
package final class JoinableThread<Result> {
    private let thread: pthread_t
    private let outcome: Outcome

    /// Where the thread leaves the result. `@unchecked Sendable`: the thread writes `value`
    /// before it ends and `join()` reads it only after `pthread_join`, which orders the two.
    private final class Outcome: @unchecked Sendable {
        var value: Result?
    }

    /// Starts `body` on a new thread, or returns nil when no thread can be made. `body` and what
    /// it captures belong to that thread until `join()` returns.
    package init?(_ body: @escaping () -> Result) {
        let outcome = Outcome()
        let start = ThreadStart { outcome.value = body() }
        var thread = pthread_t()
        let context = Unmanaged.passRetained(start).toOpaque()
        let started = pthread_create(&thread, nil, { context in
            Unmanaged<ThreadStart>.fromOpaque(context!).takeRetainedValue().run()
            return nil
        }, context)
        guard started == 0 else {
            Unmanaged<ThreadStart>.fromOpaque(context).release()
            return nil
        }
        self.thread = thread
        self.outcome = outcome
    }

    /// Runs `body` on a thread of its own and waits for it (or runs it here when no thread can be
    /// had): for work that blocks, such as libcurl's loop in `poll`, which must never block a
    /// thread of Swift's cooperative pool.
    package static func run(_ body: @escaping () -> Result) -> Result {
        guard let thread = JoinableThread(body) else { return body() }
        return thread.join()
    }

    /// Runs `body` on a thread of its own that nobody waits for (it ends with `body`), for work whose
    /// caller learns of its end otherwise (an async continuation); false when no thread can be made.
    package static func detached(_ body: @escaping () -> Void) -> Bool where Result == Void {
        guard let thread = JoinableThread(body) else { return false }
        pthread_detach(thread.thread)
        return true
    }

    /// Waits for the thread to end and returns what `body` returned. Call it exactly once.
    package func join() -> Result {
        pthread_join(thread, nil)
        return outcome.value!
    }
}

/// What a new thread runs: not generic, as a C function pointer (the thread's entry) may not be.
private final class ThreadStart {
    let run: () -> Void

    init(_ run: @escaping () -> Void) { self.run = run }
}
