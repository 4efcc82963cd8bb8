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

    /// Runs `body`, adding the time it took to `step` less the time this thread added to `nested`
    /// meanwhile (the waits counted inside it, as libcurl's work holds a write callback's wait for a
    /// buffer). Another thread's time in `nested` is not taken off: two threads receive at once.
    package func measure<T>(_ step: PullSteps.Step, lessTimeIn nested: PullSteps.Step..., body: () -> T) -> T {
        let here = ThreadTotals.here()
        let nestedBefore = nested.reduce(0) { $0 + here[$1.slot] }
        let start = Self.nanoseconds()
        defer { add(Self.nanoseconds() - start - (nested.reduce(0) { $0 + here[$1.slot] } - nestedBefore), to: step) }
        return body()
    }

    /// Adds `nanoseconds` to `step` (negative to take back time a step inside another counted).
    package func add(_ nanoseconds: Int64, to step: PullSteps.Step) {
        counters[step]!.value.add(nanoseconds, ordering: .relaxed)
        ThreadTotals.here()[step.slot] += nanoseconds
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

    /// The nanoseconds the calling thread added to each step (by `slot`), of every `StepTimes`:
    /// a thread's own, so that a step measured around others takes off only what nested in it.
    private enum ThreadTotals {
        static let key: pthread_key_t = {
            var key = pthread_key_t()
            pthread_key_create(&key) { $0?.deallocate() }
            return key
        }()

        static func here() -> UnsafeMutablePointer<Int64> {
            if let totals = pthread_getspecific(key) { return totals.assumingMemoryBound(to: Int64.self) }
            let totals = UnsafeMutablePointer<Int64>.allocate(capacity: PullSteps.Step.allCases.count)
            totals.initialize(repeating: 0, count: PullSteps.Step.allCases.count)
            pthread_setspecific(key, totals)
            return totals
        }
    }
}

extension PullSteps.Step {
    /// A place of its own among `allCases.count`, without building `allCases` at each call.
    fileprivate var slot: Int {
        switch self {
        case .receiving: 0
        case .networkWaits: 1
        case .bufferWaits: 2
        case .writeWaits: 3
        case .verifying: 4
        case .commitWaits: 5
        case .writes: 6
        case .syncs: 7
        case .renames: 8
        case .directorySyncs: 9
        }
    }
}
