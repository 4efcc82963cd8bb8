/// One thread that runs the jobs given to it in order, so that the thread giving them goes on
/// without waiting for them (a group commit's syncs and renames wait on the disk, while the thread
/// that drives libcurl has bytes to receive). What each job returns is taken back, in order, by
/// `takeFinished` (never waiting) or `waitForAll`. Without a thread of its own, a job runs when given.
package final class SerialWorker<Output> {
    private let shared = Shared()
    private var thread: JoinableThread<Void>?
    /// Jobs given and not yet taken back.
    package private(set) var unfinished = 0

    package init() {
        thread = JoinableThread { [shared] in shared.work() }
    }

    /// Runs the jobs still queued, then ends the thread.
    deinit {
        shared.close()
        thread?.join()
    }

    /// Queues `job` after those given before it.
    package func submit(_ job: @escaping () -> Output) {
        unfinished += 1
        guard thread != nil else {
            var output: Output? = job()
            return shared.publish(&output)
        }
        shared.enqueue(job)
    }

    /// What the jobs that have run so far returned, in the order they were given; never waits.
    package func takeFinished() -> [Output] { taken(shared.takeFinished(waitingForAll: false)) }

    /// Waits for every job given, then returns what those not yet taken back returned, in order.
    package func waitForAll() -> [Output] { taken(shared.takeFinished(waitingForAll: true)) }

    private func taken(_ outputs: [Output]) -> [Output] {
        unfinished -= outputs.count
        return outputs
    }

    /// The queue and the outputs, shared with the thread.
    ///
    /// `@unchecked Sendable`: every variable is read and written inside `monitor.locked`; a job and
    /// what it captures belong to the worker's thread from `enqueue` until its output is taken.
    private final class Shared: @unchecked Sendable {
        private let monitor = Monitor()
        private var queue: [() -> Output] = []
        private var running = false
        private var finished: [Output] = []
        private var closing = false

        func enqueue(_ job: @escaping () -> Output) {
            monitor.locked {
                queue.append(job)
                monitor.broadcast()
            }
        }

        /// Moves `output` into the finished ones, leaving nil: no copy of it outlives the lock here.
        func publish(_ output: inout Output?) {
            monitor.locked {
                finished.append(output.take()!)
                running = false
                monitor.broadcast()
            }
        }

        func close() {
            monitor.locked {
                closing = true
                monitor.broadcast()
            }
        }

        func takeFinished(waitingForAll: Bool) -> [Output] {
            monitor.locked {
                while waitingForAll, running || !queue.isEmpty { monitor.wait() }
                defer { finished.removeAll() }
                return finished
            }
        }

        /// Runs the queued jobs until closed with the queue empty. This thread lets go of each job, and
        /// of its output, before the owner can take that output: what they hold (the owner itself, at the
        /// last) must never be released here once the owner has let go of it, or the owner would end on
        /// the thread its end waits for.
        func work() {
            while true {
                var output: Output?
                guard runNext(into: &output) else { return }
                publish(&output)
            }
        }

        /// Runs the next job into `output`, letting go of the job on return; false once closed.
        private func runNext(into output: inout Output?) -> Bool {
            guard let job = nextJob() else { return false }
            output = job()
            return true
        }

        private func nextJob() -> (() -> Output)? {
            monitor.locked {
                while queue.isEmpty {
                    if closing { return nil }
                    monitor.wait()
                }
                running = true
                return queue.removeFirst()
            }
        }
    }
}
