import Glibc
import Testing
@testable import AssetSyncSystem

/// The commit thread's worker: outputs in the order given, a take that never waits, and a job and
/// its output let go by the worker's thread before the owner can take that output.
@Suite struct SerialWorkerTests {
    @Test func outputsComeBackOnceEachInTheOrderTheJobsWereGiven() {
        let worker = SerialWorker<Int>()
        var taken: [Int] = []
        for index in 0..<200 {
            worker.submit { index }
            if index % 50 == 0 { taken += worker.takeFinished() }
        }
        taken += worker.waitForAll()
        #expect(taken == Array(0..<200))
        #expect(worker.unfinished == 0)
        #expect(worker.waitForAll().isEmpty)
    }

    @Test func takingFinishedOutputsNeverWaitsForARunningJob() {
        let worker = SerialWorker<String>()
        let gate = Gate()
        worker.submit {
            gate.wait()
            return "done"
        }
        #expect(worker.takeFinished().isEmpty)
        #expect(worker.unfinished == 1)
        gate.open()
        #expect(worker.waitForAll() == ["done"])
        #expect(worker.unfinished == 0)
    }

    @Test func anOwnerHeldByItsJobAndItsOutputIsReleasedByTheThreadThatLetsItGo() {
        let releases = ReleaseLog()
        for _ in 0..<20 {
            let owner = Owner(releases: releases)
            owner.worker.submit { [owner] in owner }
            #expect(owner.worker.waitForAll().count == 1)
        }
        // Each owner's last reference went at the end of its turn of the loop: on this thread, never
        // on the worker's, whose end the owner's release waits for.
        #expect(releases.threads == Array(repeating: pthread_self(), count: 20))
    }
}

/// Holds a worker whose jobs and outputs hold it: its release must happen on a thread other than the worker's.
private final class Owner {
    let worker = SerialWorker<AnyObject>()
    private let releases: ReleaseLog

    init(releases: ReleaseLog) { self.releases = releases }

    deinit { releases.add(pthread_self()) }
}

/// The threads an `Owner` was released on.
private final class ReleaseLog: @unchecked Sendable {
    private let monitor = Monitor()
    private var stored: [pthread_t] = []

    func add(_ thread: pthread_t) { monitor.locked { stored.append(thread) } }

    var threads: [pthread_t] { monitor.locked { stored } }
}

/// A one-shot barrier: `wait` returns once `open` has been called.
private final class Gate: @unchecked Sendable {
    private let monitor = Monitor()
    private var isOpen = false

    func open() {
        monitor.locked {
            isOpen = true
            monitor.broadcast()
        }
    }

    func wait() { monitor.locked { while !isOpen { monitor.wait() } } }
}
