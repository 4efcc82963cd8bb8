import AssetSyncManifestIO
import AssetSyncModel
import AssetSyncTransfer

/// The process-wide set-up the library needs before its first request (libcurl's and libxml2's),
/// done once, whichever thread asks first: Swift runs a global's initializer exactly once.
enum Runtime {
    private static let setUp: Result<Void, AssetSyncError> = {
        do throws(Transfers.SetupFailure) {
            try Transfers.initialize()
        } catch {
            return .failure(AssetSyncError(error, "cannot set up libcurl"))
        }
        ManifestReader.prepare()
        return .success(())
    }()

    /// Sets the process up for requests, or tells why it cannot be.
    static func ready() throws(AssetSyncError) { try setUp.get() }
}
