import Glibc

/// Work handed to other threads and not yet done, with the first error it met: `wait()` returns
/// once every piece begun has ended.
///
/// `@unchecked Sendable`: every variable is read and written with `lock` held.
package final class PendingWork<Failure: Error>: @unchecked Sendable {
    private let lock = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let ended = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var running = 0
    private var failure: Failure?

    package init() {
        pthread_mutex_init(lock, nil)
        pthread_cond_init(ended, nil)
    }

    deinit {
        pthread_cond_destroy(ended)
        pthread_mutex_destroy(lock)
        lock.deallocate()
        ended.deallocate()
    }

    /// The first error met so far, if any: later pieces need not run.
    package var hasFailed: Bool { locked { failure != nil } }

    package func begin() { locked { running += 1 } }

    /// Ends one piece begun with `begin()`, keeping `error` when it is the first.
    package func end(_ error: Failure? = nil) {
        locked {
            running -= 1
            if failure == nil { failure = error }
        }
        pthread_cond_broadcast(ended)
    }

    /// Waits for every piece begun, then returns the first error met (kept until `reset()`).
    package func wait() -> Failure? {
        pthread_mutex_lock(lock)
        defer { pthread_mutex_unlock(lock) }
        while running > 0 { pthread_cond_wait(ended, lock) }
        return failure
    }

    /// Waits for every piece begun and forgets the error met: what follows starts afresh.
    package func reset() {
        _ = wait()
        locked { failure = nil }
    }

    private func locked<T>(_ body: () -> T) -> T {
        pthread_mutex_lock(lock)
        defer { pthread_mutex_unlock(lock) }
        return body()
    }
}
