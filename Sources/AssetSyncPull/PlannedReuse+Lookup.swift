package import AssetSyncCache
package import AssetSyncModel

extension PlannedReuse {
    /// Looks up the `new` and `changed` items of `plan` (made from `manifest`) in `sources`.
    package init(plan: SyncPlan, manifest: Manifest, sources: [ReuseSource]) {
        let fetched = manifest.entries.indices.filter { index in
            let action = plan.items.action(at: index)
            return action == .new || action == .changed
        }
        // An empty DEST's index and no other source: nothing to look up, and no copy of the entries.
        guard !fetched.isEmpty, sources.contains(where: { !$0.index.entries.isEmpty }) else {
            self = .none
            return
        }
        let finder = ReuseFinder(sources: sources, for: fetched.map { manifest.entries[$0] })
        var found: [Int: String] = [:]
        var bytes: Int64 = 0
        if !finder.isEmpty {
            for index in fetched {
                guard let first = finder.candidates(for: manifest.entries[index]).first else { continue }
                found[index] = first.displayPath
                bytes = bytes.addingSaturated(manifest.entries[index].size)
            }
        }
        self.init(sources: found, bytes: bytes)
    }
}
