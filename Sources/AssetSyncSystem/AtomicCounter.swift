import Synchronization

/// A counter shared between threads; `increment` returns the value before.
package final class AtomicCounter: Sendable {
    private let value = Atomic<Int>(0)

    func increment() -> Int { value.add(1, ordering: .relaxed).oldValue }
}
