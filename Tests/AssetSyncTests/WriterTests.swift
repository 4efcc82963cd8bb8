import Glibc
import Testing
@testable import AssetSyncCache
@testable import AssetSyncModel
@testable import AssetSyncSystem
@testable import AssetSyncTransfer
import TestSupport

/// The writers that take received bytes off the transfer thread: the pool's order and bounds,
/// the queued sink's faithfulness to the sink it wraps, and a partial's writes past the page cache.
@Suite struct WriterTests {
    private static func randomBytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }

    /// Feeds `bytes` to `sink` in pieces of random sizes, as libcurl's callbacks come.
    private static func feed(_ bytes: [UInt8], to sink: any DownloadSink, maximumPiece: Int) throws {
        try bytes.withUnsafeBytes { all in
            var start = 0
            while start < all.count {
                let end = min(all.count, start + Int.random(in: 1...maximumPiece))
                try sink.append(UnsafeRawBufferPointer(rebasing: all[start..<end]))
                start = end
            }
        }
    }

    @Test func jobsOfOneLaneRunInOrderAndTheQueueDrainsAtTheEnd() {
        let log = Log()
        do {
            let pool = WriterPool(lanes: 3, buffers: 4, bufferSize: 4096)
            for index in 0..<300 { pool.run(on: index % 3) { log.add(index) } }
        }  // the pool ends here: every job queued has run
        let seen = log.values
        #expect(seen.count == 300)
        for lane in 0..<3 {
            let ofLane = seen.filter { $0 % 3 == lane }
            #expect(ofLane == ofLane.sorted())
        }
    }

    @Test func takingABufferWaitsUntilOneComesBack() {
        let pool = WriterPool(lanes: 1, buffers: 2, bufferSize: 4096)
        let first = pool.takeBuffer()
        let second = pool.takeBuffer()
        #expect(Int(bitPattern: first.baseAddress) % 4096 == 0)
        let released = Log()
        // The pool takes `first` back once the job has run. A job that held the pool itself could
        // drop its last reference on the lane's thread, whose deinit would then join that thread.
        pool.run(on: 0, thenReturn: first) {
            usleep(50_000)
            released.add(1)
        }
        let third = pool.takeBuffer()  // only after the job gave `first` back
        #expect(released.values == [1])
        #expect(third.baseAddress == first.baseAddress)
        pool.returnBuffer(second)
        pool.returnBuffer(third)
    }

    @Test(arguments: [1, 7, 4096, 100_000])
    func aQueuedSinkHoldsExactlyTheBytesAppended(maximumPiece: Int) throws {
        let bytes = Self.randomBytes(300_000)
        let inner = MemorySink(expected: bytes)
        let pool = WriterPool(lanes: 2, buffers: 3, bufferSize: 8192)
        let sink = QueuedSink(inner, pool: pool, lane: 1)
        try Self.feed(bytes, to: sink, maximumPiece: maximumPiece)
        #expect(sink.offset == 300_000)
        #expect(sink.mismatch() == nil)
        #expect(inner.bytes == bytes)
    }

    @Test func aWriteErrorComesBackFromALaterAppendOrTheFlush() throws {
        let inner = FailingSink(failAfter: 10_000)
        let pool = WriterPool(lanes: 1, buffers: 2, bufferSize: 4096)
        let sink = QueuedSink(inner, pool: pool, lane: 0)
        var thrown: SystemError?
        do {
            try Self.feed(Self.randomBytes(100_000), to: sink, maximumPiece: 5000)
            try sink.flush()
        } catch let error as SystemError {
            thrown = error
        }
        #expect(thrown?.code == ENOSPC)
        #expect(inner.written <= 10_000 + 4096)  // nothing appended after the failing write
        // The error is reported once; a restart starts afresh.
        try sink.restart()
        #expect(sink.offset == 0)
        try sink.flush()
    }

    @Test func restartDropsBytesNotYetWrittenAndSaveResumeWaitsForTheBytesSent() throws {
        let bytes = Self.randomBytes(10_000)
        let inner = MemorySink(expected: bytes)
        let pool = WriterPool(lanes: 1, buffers: 2, bufferSize: 4096)
        let sink = QueuedSink(inner, pool: pool, lane: 0)
        try Self.feed(Array(bytes[0..<5000]), to: sink, maximumPiece: 1000)
        try sink.saveResume([(key: "etag", value: "\"v1\"")])
        // The full buffer is written before the record; the partly filled one is held back, and
        // `writtenOffset` says so: a segment's record names no more than that.
        #expect(inner.bytes == Array(bytes[0..<4096]))
        #expect(sink.writtenOffset == 4096)
        #expect(sink.offset == 5000)
        try Self.feed(Array(bytes[5000...]), to: sink, maximumPiece: 1000)
        try sink.restart()
        #expect(inner.bytes.isEmpty)
        #expect(sink.offset == 0)
        try Self.feed(bytes, to: sink, maximumPiece: 4000)
        #expect(sink.mismatch() == nil)
    }

    @Test func aPartialWritesAlignedPiecesPastThePageCacheAndKeepsEveryByte() throws {
        let directory = try TemporaryDirectory()
        let root = try CacheRoot(resolvedPath: directory.path + "/cache")
        // Aligned pieces, then one whose first three pages are aligned and whose tail is not.
        let directBytes = (1 << 20) + 3 * 4096
        let size = directBytes + 1234
        let bytes = Self.randomBytes(size)
        var crc = CRC32()
        bytes.withUnsafeBytes { crc.update($0) }
        let entry = ManifestEntry(path: "big.bin", size: Int64(size), crc32: crc.value)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 4096)
        defer { buffer.deallocate() }
        let partial = try PartialFile(root: root, entry: entry, name: "big", buffer: buffer, resumable: { _ in false })
        partial.enableDirectWrites()
        try #require(partial.writesDirect, "the file system of \(directory.path) has no direct I/O (O_DIRECT): nothing to test")
        let aligned = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 18, alignment: 4096)
        defer { aligned.deallocate() }
        var start = 0
        while start < size {
            let count = min(aligned.count, size - start)
            bytes[start..<start + count].withUnsafeBytes { aligned.copyMemory(from: $0) }
            try partial.append(UnsafeRawBufferPointer(rebasing: aligned[0..<count]))
            start += count
        }
        #expect(try Committer.verify(partial) == ())
        // Every aligned page went to the disk without passing through the page cache; only the tail did.
        #expect(try Self.residentPages(fd: partial.fd, length: directBytes) == 0)
        var back = [UInt8](repeating: 0, count: size)
        #expect(pread(partial.fd, &back, size, 0) == size)
        #expect(back == bytes)
    }

    @Test func recordsSavedMidStreamLeaveEveryWriteAtABufferBoundary() throws {
        let bytes = Self.randomBytes(100_000)
        let inner = WriteLog(expected: bytes)
        let pool = WriterPool(lanes: 1, buffers: 2, bufferSize: 4096)
        let sink = QueuedSink(inner, pool: pool, lane: 0)
        var start = 0
        while start < bytes.count {
            let end = min(bytes.count, start + 3000)
            try Self.feed(Array(bytes[start..<end]), to: sink, maximumPiece: 1000)
            try sink.saveResume([(key: "etag", value: "\"v1\"")])  // as a segment does every few MiB
            start = end
        }
        try sink.flush()
        #expect(sink.mismatch() == nil)
        // Each write but the last starts at a multiple of the buffer size and fills a buffer.
        let writes = inner.writes
        #expect(writes.dropLast().allSatisfy { $0.offset % 4096 == 0 && $0.count == 4096 })
        #expect(writes.last.map { $0.offset + Int64($0.count) } == Int64(bytes.count))
    }

    /// Pages of the first `length` bytes of `fd` held in the page cache.
    private static func residentPages(fd: Int32, length: Int) throws -> Int {
        let map = mmap(nil, length, PROT_READ, MAP_SHARED, fd, 0)
        try #require(map != MAP_FAILED)
        defer { munmap(map, length) }
        let pages = length / Int(getpagesize())
        var resident = [UInt8](repeating: 0, count: pages)
        try #require(mincore(map, length, &resident) == 0)
        return resident.filter { $0 & 1 != 0 }.count
    }
}

/// Integers added from several threads, in the order they came.
private final class Log: @unchecked Sendable {
    private let lock = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private var stored: [Int] = []

    init() { pthread_mutex_init(lock, nil) }
    deinit { lock.deallocate() }

    func add(_ value: Int) {
        pthread_mutex_lock(lock)
        stored.append(value)
        pthread_mutex_unlock(lock)
    }

    var values: [Int] {
        pthread_mutex_lock(lock)
        defer { pthread_mutex_unlock(lock) }
        return stored
    }
}

/// A sink in memory that logs where each append started and how long it was.
private final class WriteLog: DownloadSink {
    private let memory: MemorySink
    private(set) var writes: [(offset: Int64, count: Int)] = []

    init(expected: [UInt8]) { memory = MemorySink(expected: expected) }

    var offset: Int64 { memory.offset }
    var resumeFields: [String: String]? { nil }
    func append(_ bytes: UnsafeRawBufferPointer) {
        writes.append((memory.offset, bytes.count))
        memory.append(bytes)
    }
    func restart() {
        writes = []
        memory.restart()
    }
    func discard() { memory.discard() }
    func saveResume(_ fields: [(key: String, value: String?)]) {}
    func mismatch() -> String? { memory.mismatch() }
}

/// A sink whose disk fills after `failAfter` bytes.
private final class FailingSink: DownloadSink {
    private let failAfter: Int
    private(set) var written = 0

    init(failAfter: Int) { self.failAfter = failAfter }

    var offset: Int64 { Int64(written) }
    var resumeFields: [String: String]? { nil }
    func append(_ bytes: UnsafeRawBufferPointer) throws(SystemError) {
        guard written + bytes.count <= failAfter else { throw SystemError("write", path: "full", code: ENOSPC) }
        written += bytes.count
    }
    func restart() { written = 0 }
    func discard() { written = 0 }
    func saveResume(_ fields: [(key: String, value: String?)]) {}
    func mismatch() -> String? { nil }
}
