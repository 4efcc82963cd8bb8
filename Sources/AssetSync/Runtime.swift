import AssetSyncManifestIO
import AssetSyncModel
import AssetSyncTransfer

/// The process-wide set-up the library needs before its first request (libcurl's and libxml2's),
/// done once, whichever thread asks first: Swift runs a global's initializer exactly once.
enum Runtime {
    /// Why the set-up failed, or nil once it is done.
    static let setUpFailure: (any ExplainedError)? = {
        do throws(Transfers.SetupFailure) {
            try Transfers.initialize()
        } catch {
            return error
        }
        ManifestReader.prepare()
        return nil
    }()

    /// Sets the process up for requests, or tells why it cannot be.
    static func ready() throws(AssetSyncError) {
        if let failure = setUpFailure { throw AssetSyncError(failure, "cannot set up libcurl") }
    }
}
