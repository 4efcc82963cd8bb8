import Glibc

/// A mutex and its condition variable: the one way the library's threads share state. `locked`
/// runs its body with the mutex held; inside it, `wait()` sleeps until another thread's `broadcast()`.
///
/// `@unchecked Sendable`: the pthread objects are used only through these calls.
package final class Monitor: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    package init() {
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(condition, nil)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
        condition.deallocate()
    }

    /// Runs `body` with the mutex held.
    package func locked<T>(_ body: () -> T) -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return body()
    }

    /// Inside `locked`: lets the mutex go until a `broadcast`, then holds it again.
    package func wait() { pthread_cond_wait(condition, mutex) }

    /// Wakes every thread in `wait()`.
    package func broadcast() { pthread_cond_broadcast(condition) }
}
