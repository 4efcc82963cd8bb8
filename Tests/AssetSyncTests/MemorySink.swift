@testable import AssetSyncSystem
@testable import AssetSyncTransfer

/// A download's bytes in memory, proven when they equal `expected`.
final class MemorySink: DownloadSink {
    private(set) var bytes: [UInt8]
    let resumeFields: [String: String]?
    private let expected: [UInt8]
    private(set) var saved: [String: String]?
    private(set) var discarded = false
    /// How many more times `beginFlush` says bytes are still being written, as a writer lane behind would.
    var writesStillUnderWay = 0
    /// Whether the bytes were held to the file wanted (`mismatch`) while writes were still under way.
    private(set) var provenUnwritten = false

    init(expected: [UInt8], holding bytes: [UInt8] = [], resumeFields: [String: String]? = nil) {
        self.expected = expected
        self.bytes = bytes
        self.resumeFields = resumeFields
    }

    var offset: Int64 { Int64(bytes.count) }
    func append(_ bytes: UnsafeRawBufferPointer) { self.bytes += bytes }
    func restart() {
        bytes = []
        saved = nil
    }
    func discard() {
        restart()
        discarded = true
    }
    func saveResume(_ fields: [(key: String, value: String?)]) {
        saved = Dictionary(fields.compactMap { field in field.value.map { (field.key, $0) } }, uniquingKeysWith: { _, new in new })
    }
    func beginFlush() -> Bool {
        guard writesStillUnderWay > 0 else { return true }
        writesStillUnderWay -= 1
        return false
    }
    /// Waits for the writes: after it they are all done.
    func flush() { writesStillUnderWay = 0 }
    func mismatch() -> String? {
        if writesStillUnderWay > 0 { provenUnwritten = true }
        return bytes == expected ? nil : "CRC-32 mismatch"
    }
}
