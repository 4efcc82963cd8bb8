import Glibc
import Testing
@testable import AssetSyncModel
@testable import AssetSyncSystem

/// Thread-seconds by step: a step measured around others takes off the waits nested in it on its
/// own thread, never another thread's (two threads receive at once, each with its own waits).
@Suite struct StepTimesTests {
    /// Counts `milliseconds` of `step` as `steps.add` does, on the calling thread.
    private static func pretend(_ milliseconds: Int64, of step: PullSteps.Step, in steps: StepTimes) {
        steps.add(milliseconds * 1_000_000, to: step)
    }

    @Test func aWaitNestedOnTheSameThreadIsTakenOffTheStepAroundIt() {
        let steps = StepTimes()
        let before = StepTimes.nanoseconds()
        steps.measure(.receiving, lessTimeIn: .bufferWaits, .writeWaits) {
            usleep(20_000)
            Self.pretend(15, of: .bufferWaits, in: steps)
        }
        let elapsed = StepTimes.nanoseconds() - before
        // At least 20 ms slept, 15 ms of them said to be a wait: what is left, and no more.
        let receiving = steps.total(of: .receiving)
        #expect(receiving >= 5_000_000 && receiving <= elapsed - 15_000_000, "\(receiving) of \(elapsed) ns")
        #expect(steps.total(of: .bufferWaits) == 15_000_000)
    }

    @Test func anotherThreadsWaitsMeanwhileAreNotTakenOff() throws {
        let steps = StepTimes()
        let started = Monitor()
        var inside = false
        let other = try #require(JoinableThread { () -> Void in
            started.locked { while !inside { started.wait() } }
            Self.pretend(500, of: .bufferWaits, in: steps)
            Self.pretend(500, of: .writeWaits, in: steps)
        })
        steps.measure(.receiving, lessTimeIn: .bufferWaits, .writeWaits) {
            started.locked {
                inside = true
                started.broadcast()
            }
            other.join()
            usleep(10_000)
        }
        // The other thread's second of waits fell inside this measure; it is its own, not this thread's.
        #expect(steps.total(of: .receiving) >= 10_000_000, "\(steps.total(of: .receiving)) ns")
        #expect(steps.total(of: .bufferWaits) + steps.total(of: .writeWaits) == 1_000_000_000)
    }
}
