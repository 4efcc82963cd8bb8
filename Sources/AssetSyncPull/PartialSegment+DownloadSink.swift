import AssetSyncCache
package import AssetSyncSystem
import AssetSyncTransfer

/// A segment of a partial is a download's sink like a whole partial: its bytes and CRC are its
/// own, while the resume record and a final discard are its file's.
extension PartialSegment: DownloadSink {
    package var resumeFields: [String: String]? { file.resumeFields }

    package func discard() { file.discard() }

    package func saveResume(_ fields: [(key: String, value: String?)]) throws(SystemError) { try file.saveResume(fields) }

    package func mismatch() -> String? { shortfall }
}
