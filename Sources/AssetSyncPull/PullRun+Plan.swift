import AssetSyncCache
package import AssetSyncModel
import AssetSyncSystem

extension PullRun {
    /// What a pull would do, from the state index and a scan of the destination. Nothing is made or
    /// recorded: a remote manifest is fetched into a temporary file, and a signed one's version only
    /// compared with the one the destination accepted.
    /// `events` hears a refusal of the manifest.
    package func plan(events: any PullEvents) throws(PullRunFailure) -> PlanResult {
        try telling(events) { () throws(PullRunFailure) in try planning(events: events) }
    }

    private func planning(events: any PullEvents) throws(PullRunFailure) -> PlanResult {
        let admission = try admission()
        let local = try startReading(admission: admission)
        let loaded = try manifest(local: local, admission: admission, into: nil)
        loaded.manifest.notes.forEach(events.warned)
        let root = try resolvedDest()
        try checkVersion(of: loaded, admission: admission, .check(cacheAt: root))
        let listing: CacheListing
        do { listing = try CacheScanner.scan(root: root) } catch { throw .scan(error) }
        // The state index as the pull will read it (a pull that proves every file again ignores it),
        // so the plan names the files the pull would not read.
        let index = StateIndex.load(cacheAt: root)
        let plan = SyncPlan(manifest: loaded.manifest, cache: listing, state: request.verifyAll ? nil : index)
        // Where the pull would look for those bytes on the machine first: the destination (renamed or
        // moved entries), its other generations, then the other caches, as the pull searches them.
        let sources = [ReuseSource(plannedDestinationAt: root, index: index)].compactMap { $0 }
            + GenerationStore.otherGenerations(of: request.dest) + (try reuseSources())
        return PlanResult(manifest: loaded.manifest, plan: plan, reuse: PlannedReuse(plan: plan, manifest: loaded.manifest, sources: sources))
    }
}
