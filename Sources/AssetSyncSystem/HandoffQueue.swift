import Glibc

/// A bounded first-in, first-out queue between threads: `put` waits while it
/// is full, `take` while it is empty, and `cancel()` ends both waits for good.
/// The bound keeps a producer from running further ahead than its consumer
/// can use.
///
/// `@unchecked Sendable`: every stored property is read and written with
/// `lock` held.
package final class HandoffQueue<Element>: @unchecked Sendable {
    private let lock = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let changed = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private let capacity: Int
    /// Never more than `capacity`, so taking from the front is cheap.
    private var elements: [Element] = []
    private var cancelled = false

    package init(capacity: Int) {
        self.capacity = capacity
        pthread_mutex_init(lock, nil)
        pthread_cond_init(changed, nil)
    }

    deinit {
        pthread_cond_destroy(changed)
        pthread_mutex_destroy(lock)
        lock.deallocate()
        changed.deallocate()
    }

    /// Appends `element`, waiting for room; false (and `element` dropped) once cancelled.
    @discardableResult
    package func put(_ element: consuming Element) -> Bool {
        pthread_mutex_lock(lock)
        defer { pthread_mutex_unlock(lock) }
        while elements.count >= capacity, !cancelled { pthread_cond_wait(changed, lock) }
        guard !cancelled else { return false }
        elements.append(element)
        pthread_cond_broadcast(changed)
        return true
    }

    /// The oldest element, waiting for one; nil once cancelled.
    package func take() -> Element? {
        pthread_mutex_lock(lock)
        defer { pthread_mutex_unlock(lock) }
        while elements.isEmpty, !cancelled { pthread_cond_wait(changed, lock) }
        guard !cancelled else { return nil }
        let element = elements.removeFirst()  // moved out: the taker holds the only reference
        pthread_cond_broadcast(changed)
        return element
    }

    package func cancel() {
        pthread_mutex_lock(lock)
        cancelled = true
        pthread_cond_broadcast(changed)
        pthread_mutex_unlock(lock)
    }
}
