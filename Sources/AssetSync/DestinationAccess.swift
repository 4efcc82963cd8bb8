import AssetSyncCache
import AssetSyncModel
import AssetSyncPull
import AssetSyncSystem

/// A request's destination: resolved, opened and locked, as a plain directory or through its
/// generation store, and rolled back. A pull, a plan and a verification reach it through their
/// `RequestRun`; `AssetSync.rollback` needs nothing else.
struct DestinationAccess {
    let destination: String
    let lockWaitSeconds: Double
    let stop: StopSource

    /// `root`'s lock, waiting `lockWaitSeconds`.
    func lock(_ root: CacheRoot) throws(AssetSyncError) -> CacheLock {
        do {
            return try CacheLock(root: root, wait: lockWaitSeconds, stop: stop)
        } catch {
            if stop.isRequested() { throw .cancelled }
            throw AssetSyncError(error, "cannot lock \(root.path)")
        }
    }

    /// The destination, resolved once and opened (made when missing), and locked for the run.
    func openDestination() throws(AssetSyncError) -> (root: CacheRoot, lock: CacheLock) {
        let path: String
        switch CacheDirectory.resolve(destination) {
        case .success(let resolved): path = resolved
        case .failure(let problem): throw AssetSyncError(problem.kind, "destination \(QuotedValue.quote(destination)): \(problem.message)")
        }
        let root: CacheRoot
        do { root = try CacheRoot(resolvedPath: path) } catch { throw AssetSyncError(error, "cannot open the destination") }
        return (root, try lock(root))
    }

    /// DEST's generation store, opened (made when missing) beside it.
    func openStore() throws(AssetSyncError) -> GenerationStore {
        if case .failure(let problem) = GenerationStore.locate(destination) {
            throw AssetSyncError(problem.kind, "destination \(QuotedValue.quote(destination)): \(problem.message)")
        }
        do { return try GenerationStore(dest: destination) } catch {
            throw AssetSyncError(error, "cannot open the generations of \(QuotedValue.quote(destination))")
        }
    }

    /// Goes back to the generation before the current one, once it is found as its pull left it
    /// (by `stat`; reading every file too with `reading`); returns the generation shown now.
    func rollback(reading: Bool) throws(AssetSyncError) -> String {
        guard let mode = GenerationStore.rememberedMode(destination), !mode.leaving else {
            throw .invalid("\(QuotedValue.quote(destination)) is not in generations, so it has none to go back to")
        }
        let store = try openStore()
        let held = try lock(store.root)
        defer { withExtendedLifetime(held) {} }
        do { _ = try GenerationPull.finishInterruptedSteps(of: store) } catch { throw AssetSyncError(error, nil) }
        do { return try GenerationRollback.run(store, reading: reading) } catch { throw AssetSyncError(error, nil) }
    }
}
