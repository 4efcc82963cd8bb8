import AssetSyncCache
package import AssetSyncModel

extension PullRun {
    /// Pulls: every file of the manifest into the destination, proven before it is visible; in
    /// generations, into the next one, published only when every file is. `events` hears the pull's
    /// events, what went wrong without stopping it, the publishing and a refusal of the manifest.
    ///
    /// A local manifest is read while the destination is opened, locked and walked; a bad one is the
    /// failure told ahead of any of the destination's, and the run then leaves nothing it made. In
    /// generations, the published one is walked while the manifest is read. A remote manifest is
    /// fetched (after the splay) into the locked destination.
    package func pull(events: any PullEvents) throws(PullRunFailure) -> PullResult {
        try telling(events) { () throws(PullRunFailure) in try pulling(events: events) }
    }

    private func pulling(events: any PullEvents) throws(PullRunFailure) -> PullResult {
        let admission = try admission()
        let choice = GenerationPull.Choice(dest: request.dest, asked: request.layout, keep: request.keep)
        if request.keep != nil, request.layout == .plain || (choice.remembered == nil && request.layout != .atomic) {
            throw .keepWithoutGenerations
        }
        let local = try startReading(admission: admission)
        let early = local != nil && request.layout != .plain ? GenerationPull.earlyWalk(of: request.dest) : nil
        /// A failure of the destination's, or the manifest's own (leaving nothing of `made`).
        func failed(_ failure: PullRunFailure, made root: CacheRoot? = nil) -> PullRunFailure {
            guard let own = local?.failure else { return failure }
            root?.forgetWhatThisRunCreated()
            return own
        }
        func opened() throws(PullRunFailure) -> CacheRoot {
            do { return try openDest() } catch { throw failed(error) }
        }
        func locked(_ root: CacheRoot) throws(PullRunFailure) -> CacheLock {
            do { return try lock(root) } catch { throw failed(error, made: root) }
        }
        var locks: [CacheLock] = []
        defer { withExtendedLifetime(locks) {} }
        var generations: GenerationPull?
        if choice.touchesStore {
            // The store and the next generation are made only for a manifest that can be pulled.
            if let own = local?.failure { throw own }
            let store = try Self.openStore(request.dest)
            locks.append(try locked(store.root))
            do { try GenerationPull.begin(store, choice: choice).forEach(events.warned) } catch { throw .generations(error) }
            if choice.atomic {
                // While DEST is still a plain directory, its own lock too: a plain run that started
                // before the mode was recorded finishes first.
                if store.destIsPlain { locks.append(try locked(try opened())) }
                generations = GenerationPull(store: store, choice: choice)
            }
        }
        let root: CacheRoot
        if let generations {
            do { root = try generations.build() } catch { throw .generations(error) }
        } else {
            root = try opened()
        }
        locks.append(try locked(root))
        if request.splay > 0, Splay.wait(upTo: request.splay, stop: effects.stop, clock: effects.clock) { throw .interrupted }
        let walk = local.map { _ in generations?.walk(of: root, early: early) ?? CacheWalk(root) }
        let loaded: Loaded
        do {
            loaded = try manifest(local: local, admission: admission, into: root)
            try checkVersion(of: loaded, admission: admission, .accept(root))
            loaded.manifest.notes.forEach(events.warned)
        } catch {
            if local != nil { root.forgetWhatThisRunCreated() }
            throw error
        }
        let reuseFrom = (generations?.store.reuseSources() ?? []) + (try reuseSources())
        let options = try transferOptions(namesStore: loaded.manifest.namesObjectStore)
        let started = effects.clock()
        let outcome: PullOutcome
        do {
            outcome = try PullSession(
                manifest: loaded.manifest, root: root, options: options, events: events, stop: effects.stop, clock: effects.clock,
                transport: effects.transport, reuseFrom: reuseFrom
            ).run(verifyAll: request.verifyAll, deleteUpTo: request.deleteUpTo, walk: walk, index: generations?.store.takeBuildIndex())
        } catch {
            switch error {
            case .scan, .readState, .state: throw .cannotStart(error)
            case .notEnoughSpace(let shortfall): throw .notEnoughSpace(shortfall, root: root.path)
            case .deleteInUnmanagedDirectory:
                root.forgetWhatThisRunCreated()
                throw .deleteInUnmanagedDirectory(root: root.path)
            case .tooManyDeletions(let count, let maximum): throw .tooManyDeletions(count: count, maximum: maximum)
            }
        }
        var pulled = PullResult(outcome: outcome, root: root.path, seconds: effects.clock() - started)
        if let generations, outcome.isComplete {
            do {
                try generations.publish(root).forEach(events.warned)
                pulled.published = generations.store.current()
                if let published = pulled.published { events.published(generation: published) }
            } catch {
                pulled.publishFailure = error
            }
        }
        return pulled
    }
}
