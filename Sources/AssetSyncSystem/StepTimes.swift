package import AssetSyncModel
import Glibc
import Synchronization

/// The time a pull's threads spend in each step (`PullSteps.Step`), added up as they run: one
/// atomic counter of nanoseconds a step, so that any thread may add to any step without a lock.
package final class StepTimes: Sendable {
    private let counters: [PullSteps.Step: Counter]

    package init() { counters = Dictionary(uniqueKeysWithValues: PullSteps.Step.allCases.map { ($0, Counter()) }) }

    /// Runs `body`, adding the time it took to `step`.
    @inline(__always)
    package func measure<T, E: Error>(_ step: PullSteps.Step, _ body: () throws(E) -> T) throws(E) -> T {
        let start = Self.nanoseconds()
        defer { add(Self.nanoseconds() - start, to: step) }
        return try body()
    }

    /// Runs `body`, adding the time it took to `step` less the time it added to `nested` (the waits
    /// counted inside it, as libcurl's work holds a write callback's wait for a buffer); `nested` must
    /// be steps only this thread adds to, or another thread's time would be taken off.
    package func measure<T>(_ step: PullSteps.Step, lessTimeIn nested: PullSteps.Step..., body: () -> T) -> T {
        let nestedBefore = nested.reduce(0) { $0 + total(of: $1) }
        let start = Self.nanoseconds()
        defer { add(Self.nanoseconds() - start - (nested.reduce(0) { $0 + total(of: $1) } - nestedBefore), to: step) }
        return body()
    }

    /// Adds `nanoseconds` to `step` (negative to take back time a step inside another counted).
    package func add(_ nanoseconds: Int64, to step: PullSteps.Step) {
        counters[step]!.value.add(nanoseconds, ordering: .relaxed)
    }

    /// The nanoseconds counted so far for `step`.
    package func total(of step: PullSteps.Step) -> Int64 { counters[step]!.value.load(ordering: .relaxed) }

    /// Every step's time so far, in seconds.
    package var snapshot: PullSteps {
        var seconds: [PullSteps.Step: Double] = [:]
        for step in PullSteps.Step.allCases { seconds[step] = Double(total(of: step)) / 1e9 }
        return PullSteps(seconds: seconds)
    }

    /// Nanoseconds on the monotonic clock.
    @inline(__always)
    package static func nanoseconds() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
    }

    private final class Counter: Sendable {
        let value = Atomic<Int64>(0)
    }
}
