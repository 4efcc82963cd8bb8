/// One thread that runs the jobs given to it in order, so that the thread giving them goes on
/// without waiting for them (a group commit's syncs and renames wait on the disk, while the thread
/// that drives libcurl has bytes to receive). What each job returns is taken back, in order, by
/// `takeFinished` (never waiting) or `waitForAll`. Without a thread of its own, a job runs when given.
package final class SerialWorker<Output> {
    private let jobs = JobQueue<() -> Output>()
    private let outputs = Outputs()
    private var thread: JoinableThread<Void>?
    /// Jobs given and not yet taken back.
    package private(set) var unfinished = 0

    package init() {
        thread = JoinableThread { [jobs, outputs] in outputs.collect(from: jobs) }
    }

    /// Runs the jobs still queued, then ends the thread.
    deinit {
        jobs.close()
        thread?.join()
    }

    /// Queues `job` after those given before it.
    package func submit(_ job: @escaping () -> Output) {
        unfinished += 1
        guard thread != nil else {
            var output: Output? = job()
            return outputs.publish(&output)
        }
        jobs.enqueue(job)
    }

    /// What the jobs that have run so far returned, in the order they were given; never waits.
    package func takeFinished() -> [Output] { taken(outputs.take(waitingFor: 0)) }

    /// Waits for every job given, then returns what those not yet taken back returned, in order.
    package func waitForAll() -> [Output] { taken(outputs.take(waitingFor: unfinished)) }

    private func taken(_ taken: [Output]) -> [Output] {
        unfinished -= taken.count
        return taken
    }

    /// The outputs not yet taken back, shared with the thread.
    ///
    /// `@unchecked Sendable`: `finished` is read and written inside `monitor.locked`; a job and what it
    /// captures belong to the worker's thread from `enqueue` until its output is taken.
    private final class Outputs: @unchecked Sendable {
        private let monitor = Monitor()
        private var finished: [Output] = []

        /// Moves `output` into the finished ones, leaving nil: no copy of it outlives the lock here.
        func publish(_ output: inout Output?) {
            monitor.locked {
                finished.append(output.take()!)
                monitor.broadcast()
            }
        }

        /// The outputs finished, once there are at least `count` of them.
        func take(waitingFor count: Int) -> [Output] {
            monitor.locked {
                while finished.count < count { monitor.wait() }
                defer { finished.removeAll() }
                return finished
            }
        }

        /// Runs `jobs` until the queue is closed with none left. This thread lets go of each job, and
        /// of its output, before the owner can take that output: what they hold (the owner itself, at
        /// the last) must never be released here once the owner has let go of it, or the owner would
        /// end on the thread its end waits for.
        func collect(from jobs: JobQueue<() -> Output>) {
            while true {
                var output: Output?
                guard run(jobs.next(), into: &output) else { return }
                publish(&output)
            }
        }

        /// Runs `job` into `output`, letting go of the job on return; false when there is none.
        private func run(_ job: (() -> Output)?, into output: inout Output?) -> Bool {
            guard let job else { return false }
            output = job()
            return true
        }
    }
}
