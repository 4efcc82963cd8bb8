@testable import AssetSyncSystem
@testable import AssetSyncTransfer

/// A download's bytes in memory, proven when they equal `expected`.
final class MemorySink: DownloadSink {
    private(set) var bytes: [UInt8]
    let resumeFields: [String: String]?
    private let expected: [UInt8]
    private(set) var saved: [String: String]?
    private(set) var discarded = false

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
    func mismatch() -> String? { bytes == expected ? nil : "CRC-32 mismatch" }
}
