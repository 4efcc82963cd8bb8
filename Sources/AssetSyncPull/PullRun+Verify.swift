package import AssetSyncModel
import AssetSyncSystem

extension PullRun {
    /// What a verification found.
    package struct Verified: Sendable {
        package var manifest: Manifest
        /// One for each entry of the manifest, in its order.
        package var verdicts: [ContentCheck.Verdict]
    }

    /// Reads every file of the manifest in the destination and proves it, whatever the state index
    /// says, under the destination's lock; records what was proven.
    package func verify() throws(PullRunFailure) -> Verified {
        let admission = try admission()
        let local = try startReading(admission: admission)
        if let own = local?.failure { throw own }
        let root = try openDest()
        let lock = try self.lock(root)
        defer { withExtendedLifetime(lock) {} }
        let loaded = try manifest(local: local, admission: admission, into: root)
        try checkVersion(of: loaded, admission: admission, .accept(root))
        let read: [ContentCheck.Verdict]?
        do { read = try Verification.run(manifest: loaded.manifest, root: root, until: effects.stop.isRequested) } catch { throw .record(error) }
        guard let verdicts = read else { throw .interrupted }
        return Verified(manifest: loaded.manifest, verdicts: verdicts)
    }
}
