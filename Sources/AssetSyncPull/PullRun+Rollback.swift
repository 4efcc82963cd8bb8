import AssetSyncCache
package import AssetSyncModel

extension PullRun {
    /// Points the destination `dest`, in generations, back at the generation before the current one,
    /// under the store's lock (waited for up to `lockWait` seconds), once that one is found as its pull
    /// left it (by `stat`, and with `reading` by its checksums too). What a killed run left is finished
    /// first; `events` hears what stays. Returns the destination's path and the generation it shows now.
    package static func rollback(
        dest: String, reading: Bool, lockWait: Double, effects: Effects, events: any PullEvents
    ) throws(PullRunFailure) -> (dest: String, shows: String) {
        guard let mode = GenerationStore.rememberedMode(dest), !mode.leaving else { throw .notInGenerations(dest) }
        let store = try openStore(dest)
        let lock = try Self.lock(store.root, wait: lockWait, effects: effects)
        defer { withExtendedLifetime(lock) {} }
        do { try GenerationPull.finishInterruptedSteps(of: store).forEach(events.warned) } catch { throw .generations(error) }
        do { return (store.destPath, try GenerationRollback.run(store, reading: reading)) } catch { throw .rollback(error) }
    }
}
