import Glibc

/// Runs work on a thread of its own and waits for it: libcurl's loop blocks
/// in `poll`, which must never happen on Swift's cooperative pool.
package enum DedicatedThread {
    private final class Job {
        let body: () -> Void
        init(_ body: @escaping () -> Void) { self.body = body }
    }

    package static func run(_ body: @escaping () -> Void) {
        let job = Unmanaged.passRetained(Job(body)).toOpaque()
        var thread = pthread_t()
        let created = pthread_create(&thread, nil, { context in
            let job = Unmanaged<Job>.fromOpaque(context!).takeRetainedValue()
            job.body()
            return nil
        }, job)
        guard created == 0 else {
            Unmanaged<Job>.fromOpaque(job).takeRetainedValue().body()  // no thread to be had: run here
            return
        }
        pthread_join(thread, nil)
    }
}
