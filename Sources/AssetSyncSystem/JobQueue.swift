/// Jobs handed to the one thread that runs them, first in, first out: `next` waits for one, and
/// returns nil once the queue is closed with none left. A writer lane's queue, the commit thread's.
///
/// `@unchecked Sendable`: every variable is read and written inside `monitor.locked`.
package final class JobQueue<Job>: @unchecked Sendable {
    private let monitor = Monitor()
    private var jobs: [Job] = []
    private var closing = false

    package init() {}

    package func enqueue(_ job: Job) { changing { jobs.append(job) } }

    /// No job comes after those queued: `next` returns nil once they are taken.
    package func close() { changing { closing = true } }

    /// The next job, waiting for one; nil once closed with none left.
    package func next() -> Job? {
        monitor.locked {
            while jobs.isEmpty {
                if closing { return nil }
                monitor.wait()
            }
            return jobs.removeFirst()
        }
    }

    private func changing(_ body: () -> Void) {
        monitor.locked {
            body()
            monitor.broadcast()
        }
    }
}
