package import AssetSyncModel

extension SyncPlan {
    /// The plan against the cache listing and the proofs of a state index (nil: check every file).
    package init(manifest: Manifest, cache: CacheListing, state: StateIndex? = nil) {
        let order = PathOrder.sortedIndices(of: manifest.entries)
        self.init(manifest: manifest, cache: cache, proofs: state?.proofs(for: manifest.entries, inOrder: order), inOrder: order)
    }
}
