import AssetSyncModel
package import AssetSyncSystem

/// A sink whose writes run on a writer thread: received bytes are copied into one of the pool's
/// buffers, and each full buffer is appended to the inner sink by the lane's thread while libcurl
/// receives more. Every other operation first waits for the writes in flight, so the inner sink
/// is seen as if each append had run here; a write's error comes back from a later `append` or
/// from `flush`. A partly filled buffer is held back until it fills or the download ends, so that
/// every write starts where the one before ended, block-aligned for direct I/O.
package final class QueuedSink: DownloadSink {
    package let inner: any DownloadSink
    let pool: WriterPool
    private let lane: Int
    private let writes = PendingWork<SystemError>()
    /// The buffer being filled, and how many of its bytes are set.
    private var buffer: UnsafeMutableRawBufferPointer?
    private var filled = 0
    /// Bytes accepted: written, in flight, or in `buffer`.
    package internal(set) var offset: Int64

    package init(_ inner: any DownloadSink, pool: WriterPool, lane: Int) {
        self.inner = inner
        self.pool = pool
        self.lane = lane
        offset = inner.offset
    }

    /// `inner` behind a queue on the pool's next lane; its segments, when it has any, each behind one of their own.
    package static func wrapping(_ inner: any DownloadSink, pool: WriterPool) -> any DownloadSink {
        if let segmentable = inner as? any SegmentableSink { return QueuedSegmentableSink(segmentable, pool: pool) }
        return QueuedSink(inner, pool: pool, lane: pool.nextLane())
    }

    deinit {
        if let buffer { pool.returnBuffer(buffer) }
        writes.reset()
    }

    package var resumeFields: [String: String]? { inner.resumeFields }

    package var writtenOffset: Int64 { offset - Int64(filled) }

    package func append(_ bytes: UnsafeRawBufferPointer) throws(SystemError) {
        if writes.hasFailed { try flush() }
        var rest = bytes
        while !rest.isEmpty {
            let target = buffer ?? pool.takeBuffer()
            let count = min(rest.count, target.count - filled)
            (target.baseAddress! + filled).copyMemory(from: rest.baseAddress!, byteCount: count)
            filled += count
            rest = UnsafeRawBufferPointer(rebasing: rest[count...])
            buffer = target
            if filled == target.count { send() }
        }
        offset += Int64(bytes.count)
    }

    /// Writes what `buffer` holds, then waits for every write; throws the first one's error (again at
    /// each call, until a restart).
    package func flush() throws(SystemError) {
        send()
        try settle()
    }

    package func beginFlush() -> Bool {
        send()
        return !writes.isRunning
    }

    package func settle() throws(SystemError) {
        if let error = pool.steps.measure(.writeWaits, { writes.wait() }) { throw error }
    }

    package func restart() throws(SystemError) {
        dropUnsent()
        try inner.restart()
        offset = inner.offset
    }

    package func discard() {
        dropUnsent()
        inner.discard()
        offset = inner.offset
    }

    /// Saves the record once the bytes sent are written; the bytes held back are not, so the record
    /// must name at most `writtenOffset` (a segment's record does; a whole file's names no offset).
    package func saveResume(_ fields: [(key: String, value: String?)]) throws(SystemError) {
        try settle()
        try inner.saveResume(fields)
    }

    package func mismatch() -> String? {
        do throws(SystemError) { try flush() } catch { return error.description }
        return inner.mismatch()
    }

    /// Waits for the writes in flight, dropping the bytes not yet sent and the error met: what
    /// follows starts the bytes afresh.
    private func dropUnsent() {
        if let buffer { pool.returnBuffer(buffer) }
        buffer = nil
        filled = 0
        writes.reset()
    }

    /// Hands the filled part of `buffer` to the lane's thread, which appends it unless a write before failed.
    private func send() {
        guard let full = buffer else { return }
        let bytes = UnsafeRawBufferPointer(rebasing: full[0..<filled])
        buffer = nil
        filled = 0
        writes.begin()
        pool.run(on: lane, thenReturn: full) { [inner, writes] in
            var failure: SystemError?
            if !writes.hasFailed {
                do throws(SystemError) { try inner.append(bytes) } catch { failure = error }
            }
            writes.end(failure)
        }
    }
}

/// A queued sink for a file that can be written as segments: each segment gets a queue of its own,
/// on the next lane, so that segments of one file are written by several threads at once.
final class QueuedSegmentableSink: SegmentableSink {
    private let whole: QueuedSink
    private let segmentable: any SegmentableSink

    init(_ inner: any SegmentableSink, pool: WriterPool) {
        segmentable = inner
        whole = QueuedSink(inner, pool: pool, lane: pool.nextLane())
    }

    var offset: Int64 { whole.offset }
    var resumeFields: [String: String]? { whole.resumeFields }
    func append(_ bytes: UnsafeRawBufferPointer) throws(SystemError) { try whole.append(bytes) }
    func flush() throws(SystemError) { try whole.flush() }
    func beginFlush() -> Bool { whole.beginFlush() }
    func settle() throws(SystemError) { try whole.settle() }
    var writtenOffset: Int64 { whole.writtenOffset }
    func restart() throws(SystemError) { try whole.restart() }
    func discard() { whole.discard() }
    func saveResume(_ fields: [(key: String, value: String?)]) throws(SystemError) { try whole.saveResume(fields) }
    func mismatch() -> String? { whole.mismatch() }

    func preallocate() { segmentable.preallocate() }

    func segment(_ range: Range<Int64>, done: Int64) throws(SystemError) -> any DownloadSink {
        QueuedSink(try segmentable.segment(range, done: done), pool: whole.pool, lane: whole.pool.nextLane())
    }

    func joinSegments() {
        segmentable.joinSegments()
        whole.offset = segmentable.offset
    }
}
