@testable import AssetSyncCache
@testable import AssetSyncModel

/// libFuzzer's entry: any bytes as the two records assetsync reads back from disk, where a crash,
/// another program or an attacker may have left anything: the state index (`.assetsync/state`) and a
/// partial's resume record. A record that decodes must then encode to something that decodes again.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRecords(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = size > 0 ? Array(UnsafeBufferPointer(start: data, count: size)) : []
    if let index = StateIndex.decode(bytes) {
        precondition(StateIndex.decode(index.encoded()) != nil, "a decoded state index does not decode again once encoded")
    }
    let entry = ManifestEntry(path: "a/b.bin", size: 1 << 20, crc32: 0x1234_5678)
    if let text = String(validating: bytes, as: UTF8.self), let fields = PartialFile.decodeResume(text, for: entry) {
        let again = PartialFile.encodeResume(fields.sorted { $0.key < $1.key }.map { ($0.key, Optional($0.value)) }, for: entry)
        precondition(PartialFile.decodeResume(again, for: entry) != nil, "a decoded resume record does not decode again once encoded")
    }
    return 0
}
