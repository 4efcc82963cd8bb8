import Glibc
@testable import AssetSyncSystem
@testable import AssetSyncTransfer

/// A file's bytes in memory that can be written as segments, each a view with its own offset;
/// proven when they equal `expected`.
final class MemorySegmentedSink: SegmentableSink {
    private(set) var bytes: [UInt8]
    private let expected: [UInt8]
    private(set) var offset: Int64 = 0
    let resumeFields: [String: String]? = nil
    private(set) var saved: [String: String]?
    private var views: [View] = []
    /// A write covering this offset fails as a full disk does.
    var fullDiskAt: Int64?

    init(expected: [UInt8]) {
        self.expected = expected
        bytes = Array(repeating: 0, count: expected.count)
    }

    func append(_ bytes: UnsafeRawBufferPointer) { write(bytes, at: offset); offset += Int64(bytes.count) }
    func restart() {
        offset = 0
        views = []
        saved = nil
    }
    func discard() { restart() }
    func saveResume(_ fields: [(key: String, value: String?)]) {
        saved = Dictionary(fields.compactMap { field in field.value.map { (field.key, $0) } }, uniquingKeysWith: { _, new in new })
    }
    func mismatch() -> String? { offset == Int64(expected.count) && bytes == expected ? nil : "CRC-32 mismatch" }
    func preallocate() {}
    func segment(_ range: Range<Int64>, done: Int64) -> any DownloadSink {
        let view = View(file: self, range: range, offset: range.lowerBound + done)
        views.append(view)
        return view
    }
    func joinSegments() {
        offset = 0
        for view in views.sorted(by: { $0.range.lowerBound < $1.range.lowerBound }) where view.range.lowerBound == offset {
            offset = view.offset
        }
    }

    fileprivate func write(_ data: UnsafeRawBufferPointer, at position: Int64) {
        for (index, byte) in data.enumerated() { bytes[Int(position) + index] = byte }
    }

    /// One segment: writes into the file's bytes at its own offset.
    final class View: DownloadSink {
        unowned let file: MemorySegmentedSink
        let range: Range<Int64>
        private(set) var offset: Int64

        init(file: MemorySegmentedSink, range: Range<Int64>, offset: Int64) {
            self.file = file
            self.range = range
            self.offset = offset
        }

        var resumeFields: [String: String]? { file.resumeFields }
        func append(_ bytes: UnsafeRawBufferPointer) throws(SystemError) {
            if let full = file.fullDiskAt, (offset..<offset + Int64(bytes.count)).contains(full) {
                throw SystemError("write", path: "big", code: ENOSPC)
            }
            file.write(bytes, at: offset)
            offset += Int64(bytes.count)
        }
        func restart() { offset = range.lowerBound }
        func discard() { file.discard() }
        func saveResume(_ fields: [(key: String, value: String?)]) { file.saveResume(fields) }
        func mismatch() -> String? { offset == range.upperBound ? nil : "short segment" }
    }
}
