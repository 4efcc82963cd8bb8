import AssetSyncCache
import AssetSyncTransfer

/// A partial file is where a pull's downloads write: the transfer layer streams into it
/// and keeps its resume fields there, and a size or CRC-32 mismatch is found before commit.
extension PartialFile: DownloadSink {
    package func mismatch() -> String? {
        do {
            try Committer.verify(self)
            return nil
        } catch {
            switch error {
            case .mismatch(let reason): return reason
            case .local(let error): return error.description
            }
        }
    }
}
