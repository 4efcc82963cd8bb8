import AssetSyncModel

/// Threads that write received bytes while the thread that receives them goes on receiving, so
/// that copying into the page cache and checksumming run on another core. Jobs given to one lane
/// run in order on one thread. A fixed set of page-aligned buffers bounds the bytes in flight, so
/// memory does not grow with file size or speed: `takeBuffer` waits while every buffer is in use.
package final class WriterPool {
    package let bufferSize: Int
    package let lanes: Int
    private let shared: Shared
    private let storage: UnsafeMutableRawPointer
    private var threads: [JoinableThread<Void>] = []
    /// Counts the lanes' writes and the waits for a free buffer.
    package let steps: StepTimes
    private var lanesGiven = 0

    /// - Parameters:
    ///   - lanes: writer threads (at least one).
    ///   - buffers: buffers in all; more than the callers that can each hold one partly filled, or
    ///     a caller waiting for a buffer would wait for ever.
    package init(lanes: Int, buffers: Int, bufferSize: Int, steps: StepTimes = StepTimes()) {
        self.bufferSize = bufferSize
        self.steps = steps
        self.lanes = max(1, lanes)
        storage = UnsafeMutableRawPointer.allocate(byteCount: buffers * bufferSize, alignment: 4096)
        shared = Shared(lanes: self.lanes, buffers: (0..<buffers).map { [storage] in storage + $0 * bufferSize })
        for lane in 0..<self.lanes {
            // A pool without its threads still works: each job then runs where it is given.
            if let thread = JoinableThread({ [shared] in shared.work(lane) }) { threads.append(thread) }
        }
    }

    /// Runs the jobs still queued, then ends the threads.
    deinit {
        shared.close()
        for thread in threads { thread.join() }
        storage.deallocate()
    }

    /// The lane for the next writer, in turn, so that writers spread over the threads.
    package func nextLane() -> Int {
        defer { lanesGiven += 1 }
        return lanesGiven % lanes
    }

    /// A free buffer of `bufferSize` bytes, waiting for one; give it back with `returnBuffer`.
    package func takeBuffer() -> UnsafeMutableRawBufferPointer {
        let buffer = shared.takeFreeBuffer() ?? steps.measure(.bufferWaits) { shared.takeBuffer() }
        return UnsafeMutableRawBufferPointer(start: buffer, count: bufferSize)
    }

    package func returnBuffer(_ buffer: UnsafeMutableRawBufferPointer) { shared.returnBuffer(buffer.baseAddress!) }

    /// Queues `job` on `lane`'s thread, after the jobs queued there before it, and takes `buffer`
    /// back once it has run. The job must not hold the pool: the pool ends on the thread that lets it go.
    package func run(on lane: Int, thenReturn buffer: UnsafeMutableRawBufferPointer? = nil, _ job: @escaping () -> Void) {
        let job = { [shared, steps] in
            steps.measure(.writes, job)
            if let buffer { shared.returnBuffer(buffer.baseAddress!) }
        }
        guard threads.count == lanes else { return job() }
        shared.enqueue(job, on: lane % lanes)
    }

    /// The queues and the free buffers, shared with the threads: each lane's queue and the free list
    /// behind a monitor of their own, so that a job queued wakes only its lane's thread and a buffer
    /// given back only a thread waiting for one (one monitor for all woke every lane at each write).
    ///
    /// `@unchecked Sendable`: every variable is read and written inside its monitor's `locked`.
    private final class Shared: @unchecked Sendable {
        private let buffers = Monitor()
        private var free: [UnsafeMutableRawPointer]
        private let queues: [JobQueue<() -> Void>]

        init(lanes: Int, buffers: [UnsafeMutableRawPointer]) {
            free = buffers
            queues = (0..<lanes).map { _ in JobQueue() }
        }

        /// A free buffer, or nil when every one is in use.
        func takeFreeBuffer() -> UnsafeMutableRawPointer? { buffers.locked { free.popLast() } }

        func takeBuffer() -> UnsafeMutableRawPointer {
            buffers.locked {
                while free.isEmpty { buffers.wait() }
                return free.removeLast()
            }
        }

        func returnBuffer(_ buffer: UnsafeMutableRawPointer) {
            buffers.locked {
                free.append(buffer)
                buffers.broadcast()
            }
        }

        func enqueue(_ job: @escaping () -> Void, on lane: Int) { queues[lane].enqueue(job) }

        func close() { queues.forEach { $0.close() } }

        /// Runs `lane`'s jobs until the pool closes with the lane's queue empty.
        func work(_ lane: Int) {
            while let job = queues[lane].next() { job() }
        }
    }
}
