import Glibc

/// Where `XMLManifestWalker` gets its nodes. For a manifest read from a plain
/// regular file (one whose size is known, and whose reads never wait), libxml2
/// parses on a second thread, a few batches ahead of the walker: parsing is
/// half of the work, and checking the entries most of the rest. Any other
/// input (a pipe, gzip) is parsed on the walker's thread, one node at a time,
/// so that nothing is read before the walker needs it.
///
/// Either way the walker sees the same nodes in the same order, and the end
/// or error in the same place; a reader that ran ahead of an error the walker
/// found is stopped, and whatever it found is dropped.
final class XMLNodeStream {
    private let mode: Mode

    private enum Mode {
        case sameThread(XMLNodeReader)
        case parser(Handoff, JoinableThread<Void>)
    }

    /// Nodes per batch when parsing on the second thread.
    static let batchNodes = 2048

    /// `xmlInitParser()` must have run, on the main thread.
    init(input: ManifestInput) {
        guard input.sizeHint != nil else {  // not a plain regular file
            mode = .sameThread(XMLNodeReader(input: input))
            return
        }
        let handoff = Handoff(batches: 4, capacity: Self.batchNodes)
        // The input belongs to the parser thread from here until `close()` has joined it.
        if let thread = JoinableThread({ Self.parse(input, into: handoff) }) {
            mode = .parser(handoff, thread)
        } else {
            mode = .sameThread(XMLNodeReader(input: input))
        }
    }

    /// Replaces `batch` (whose nodes the walker has handled) with the next one.
    func next(_ batch: inout XMLNodeBatch) {
        switch mode {
        case .sameThread(let reader):
            batch.removeAll()
            reader.read(into: &batch, limit: 1)
        case .parser(let handoff, _):
            batch = handoff.exchange(batch)
        }
    }

    /// Stops the parser thread, if any, and waits for it: it then has released libxml2 and the input.
    func close() {
        guard case .parser(let handoff, let thread) = mode else { return }
        handoff.cancel()
        thread.join()
    }

    /// The parser thread's work: fill free batches until the document ends or the walker cancels.
    private static func parse(_ input: ManifestInput, into handoff: Handoff) {
        let reader = XMLNodeReader(input: input)
        while var batch = handoff.takeFree() {
            batch.removeAll()
            reader.read(into: &batch, limit: batchNodes)
            let ended = batch.end != nil
            handoff.putFilled(batch)
            if ended { return }
        }
    }

    /// Batches passed between the two threads under one mutex: free ones to the parser,
    /// filled ones, in order, to the walker. A fixed number circulates, which bounds how far
    /// the parser runs ahead.
    ///
    /// `@unchecked Sendable`: every property is read and written with `lock` held.
    private final class Handoff: @unchecked Sendable {
        private let lock = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        private let changed = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
        private var free: [XMLNodeBatch]
        private var filled: [XMLNodeBatch] = []
        private var cancelled = false

        init(batches: Int, capacity: Int) {
            pthread_mutex_init(lock, nil)
            pthread_cond_init(changed, nil)
            free = (0..<batches).map { _ in XMLNodeBatch(capacity: capacity) }
        }

        deinit {
            pthread_cond_destroy(changed)
            pthread_mutex_destroy(lock)
            lock.deallocate()
            changed.deallocate()
        }

        /// The parser's next batch to fill; nil once the walker has cancelled.
        func takeFree() -> XMLNodeBatch? {
            pthread_mutex_lock(lock)
            defer { pthread_mutex_unlock(lock) }
            while free.isEmpty, !cancelled { pthread_cond_wait(changed, lock) }
            return cancelled ? nil : free.removeLast()
        }

        func putFilled(_ batch: XMLNodeBatch) {
            pthread_mutex_lock(lock)
            filled.append(batch)
            pthread_cond_broadcast(changed)
            pthread_mutex_unlock(lock)
        }

        /// Gives back a handled batch and waits for the next filled one.
        func exchange(_ handled: XMLNodeBatch) -> XMLNodeBatch {
            pthread_mutex_lock(lock)
            defer { pthread_mutex_unlock(lock) }
            free.append(handled)
            pthread_cond_broadcast(changed)
            while filled.isEmpty { pthread_cond_wait(changed, lock) }
            return filled.removeFirst()
        }

        func cancel() {
            pthread_mutex_lock(lock)
            cancelled = true
            pthread_cond_broadcast(changed)
            pthread_mutex_unlock(lock)
        }
    }
}
