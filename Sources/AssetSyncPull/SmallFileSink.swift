import AssetSyncCache
import AssetSyncModel
import AssetSyncSystem
import AssetSyncTransfer

/// A file too small to be worth resuming, held in one of the writer pool's buffers while it
/// downloads. The thread that drives every transfer only copies and checksums its bytes; once
/// they are proven, `store` has a writer lane create the partial and write them in one call,
/// on another core. Copying into the page cache was four tenths of that thread's time on
/// 5,000 × 64 KiB (perf, docs/performance.md).
final class SmallFileSink: DownloadSink {
    let entry: ManifestEntry
    private let pool: WriterPool
    /// The pool's buffer holding the bytes so far; taken at the first byte.
    private var buffer: UnsafeMutableRawBufferPointer?
    /// The bytes so far while the download waits for a retry, out of the pool (`setAside`).
    private var aside: [UInt8]?
    private(set) var offset: Int64 = 0
    private var crc = CRC32()
    /// The lane's work once the bytes are handed over by `store`.
    private var stored: Store?

    /// A sink for `entry`, whose size must fit in one of `pool`'s buffers.
    init(entry: ManifestEntry, pool: WriterPool) {
        precondition(entry.size <= Int64(pool.bufferSize))
        self.entry = entry
        self.pool = pool
    }

    deinit { if let buffer { pool.returnBuffer(buffer) } }

    /// A small file keeps no resume record: it always starts from zero.
    var resumeFields: [String: String]? { nil }

    func append(_ bytes: UnsafeRawBufferPointer) throws(SystemError) {
        let target = heldBuffer()
        // The transfer layer never appends past the entry's size, which fits in the buffer.
        precondition(Int(offset) + bytes.count <= target.count)
        (target.baseAddress! + Int(offset)).copyMemory(from: bytes.baseAddress!, byteCount: bytes.count)
        crc.update(bytes)
        offset += Int64(bytes.count)
    }

    func restart() throws(SystemError) {
        offset = 0
        crc = CRC32()
        aside = nil
    }

    func discard() {
        offset = 0
        crc = CRC32()
        aside = nil
        if let buffer { pool.returnBuffer(buffer) }
        buffer = nil
        if case .success(let partial)? = stored?.wait() { partial.discard() }
        stored = nil
    }

    /// The pool has a buffer for each running download and each writer lane, not for the downloads
    /// waiting for a retry: more small files than that waiting with bytes would leave the transfer
    /// thread waiting for a buffer for ever. The bytes wait in memory of their own (a small file's).
    func setAside() {
        guard let buffer else { return }
        aside = Array(UnsafeRawBufferPointer(rebasing: buffer[0..<Int(offset)]))
        pool.returnBuffer(buffer)
        self.buffer = nil
    }

    /// The buffer holding the bytes so far: the one held, or one taken now with the bytes set aside copied in.
    private func heldBuffer() -> UnsafeMutableRawBufferPointer {
        if let buffer { return buffer }
        let target = pool.takeBuffer()
        aside?.withUnsafeBytes { target.copyMemory(from: $0) }
        aside = nil
        buffer = target
        return target
    }

    /// Never called for a file below the resumable size; there is no record to keep.
    func saveResume(_ fields: [(key: String, value: String?)]) throws(SystemError) {}

    /// Size and CRC-32, then the SHA-256 when the entry gives one, of the bytes held.
    func mismatch() -> String? {
        if let reason = Committer.mismatch(received: offset, crc: crc.value, for: entry) { return reason }
        guard entry.sha256 != nil else { return nil }
        let digest = aside.map { $0.withUnsafeBytes { SHA256.digest(of: $0) } }
            ?? SHA256.digest(of: UnsafeRawBufferPointer(rebasing: (buffer ?? UnsafeMutableRawBufferPointer(start: nil, count: 0))[0..<Int(offset)]))
        return Committer.mismatch(sha256: digest, for: entry)
    }

    /// Hands the proven bytes to a writer lane, which writes them to a fresh partial named `name`
    /// (any leftover of that name is truncated first); `partial()` waits for it.
    func store(in root: CacheRoot, name: String) {
        let store = Store()
        stored = store
        let held = aside == nil ? buffer : heldBuffer()
        buffer = nil
        let bytes = UnsafeRawBufferPointer(rebasing: (held ?? UnsafeMutableRawBufferPointer(start: nil, count: 0))[0..<Int(offset)])
        store.work.begin()
        // The job holds the store, never this sink: the pool must not end on its own thread.
        pool.run(on: pool.nextLane(), thenReturn: held) { [entry] in
            store.write(bytes, of: entry, in: root, name: name)
        }
    }

    /// The partial holding the bytes once `store`'s write has run, or why there is none.
    func partial() -> Result<PartialFile, CacheError> {
        guard let stored else { preconditionFailure("a small file's partial asked for before its bytes were stored") }
        return stored.wait()
    }

    /// One small file's write on a lane, and its outcome.
    ///
    /// `@unchecked Sendable`: `outcome` is set by the lane before `work.end` and read only after `work.wait`.
    private final class Store: @unchecked Sendable {
        let work = PendingWork<CacheError>()
        private var outcome: Result<PartialFile, CacheError>?

        func write(_ bytes: UnsafeRawBufferPointer, of entry: ManifestEntry, in root: CacheRoot, name: String) {
            do throws(CacheError) {
                let partial = try PartialFile(
                    root: root, entry: entry, name: name, buffer: UnsafeMutableRawBufferPointer(start: nil, count: 0),
                    resumable: { _ in false })
                partial.enableDirectWrites()
                do throws(SystemError) {
                    try partial.append(bytes)
                } catch {
                    partial.discard()
                    throw .system(error)
                }
                outcome = .success(partial)
                work.end()
            } catch {
                outcome = .failure(error)
                work.end(error)
            }
        }

        func wait() -> Result<PartialFile, CacheError> {
            _ = work.wait()
            return outcome!
        }
    }
}
