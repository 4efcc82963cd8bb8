/// A bounded first-in, first-out queue between threads: `put` waits while it
/// is full, `take` while it is empty, and `cancel()` ends both waits for good.
/// The bound keeps a producer from running further ahead than its consumer
/// can use.
///
/// `@unchecked Sendable`: every stored property is read and written inside
/// `monitor.locked`.
package final class HandoffQueue<Element>: @unchecked Sendable {
    private let monitor = Monitor()
    private let capacity: Int
    /// Never more than `capacity`, so taking from the front is cheap.
    private var elements: [Element] = []
    private var cancelled = false

    package init(capacity: Int) { self.capacity = capacity }

    /// Appends `element`, waiting for room; false (and `element` dropped) once cancelled.
    @discardableResult
    package func put(_ element: consuming Element) -> Bool {
        let element = element
        return monitor.locked {
            while elements.count >= capacity, !cancelled { monitor.wait() }
            guard !cancelled else { return false }
            elements.append(element)
            monitor.broadcast()
            return true
        }
    }

    /// The oldest element, waiting for one; nil once cancelled.
    package func take() -> Element? {
        monitor.locked {
            while elements.isEmpty, !cancelled { monitor.wait() }
            guard !cancelled else { return nil }
            let element = elements.removeFirst()  // moved out: the taker holds the only reference
            monitor.broadcast()
            return element
        }
    }

    package func cancel() {
        monitor.locked {
            cancelled = true
            monitor.broadcast()
        }
    }
}
