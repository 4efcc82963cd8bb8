import AssetSyncCache
import AssetSyncManifestIO
import AssetSyncModel
import AssetSyncPull
import AssetSyncSystem
import AssetSyncTransfer

/// One request carried out by the library's layers, on the calling thread (which may block): the
/// destination opened and locked, the manifest read or fetched into it, then the pull, the plan or
/// the verification. Each step's failure becomes one `AssetSyncError`.
struct RequestRun {
    let request: PullRequest
    let stop: StopSource

    /// The transfer options the request's network settings make.
    func options() throws(AssetSyncError) -> TransferOptions {
        let network = request.network
        guard (1...64).contains(network.jobs) else { throw .invalid("jobs must be 1 to 64, not \(network.jobs)") }
        guard (0...100).contains(network.retries) else { throw .invalid("retries must be 0 to 100, not \(network.retries)") }
        var options = TransferOptions()
        options.jobs = network.jobs
        options.retries = network.retries
        if let rate = network.bytesPerSecond {
            guard rate > 0 else { throw .invalid("the rate limit must be at least 1 byte per second, not \(rate)") }
            options.limitRate = rate
        }
        options.headers = network.headers
        options.useNetrc = network.useNetrc
        options.caFile = network.caFile
        options.proxy = network.proxy
        for host in network.credentialHosts where !options.credentialScope.admit(host: host) {
            throw .invalid("a credential host must be a host name or address, with an optional :port, not \(QuotedValue.quote(host))")
        }
        if case .url(let url) = request.manifest { options.credentialScope.admit(originOf: url) }
        return options
    }

    /// `root`'s lock, waiting as the request says.
    private func lock(_ root: CacheRoot) throws(AssetSyncError) -> CacheLock {
        do {
            return try CacheLock(root: root, wait: request.lockWaitSeconds, shouldStop: stop.isRequested)
        } catch {
            if stop.isRequested() { throw .cancelled }
            throw AssetSyncError(error, "cannot lock \(root.path)")
        }
    }

    /// The destination, resolved once and opened (made when missing), and locked for the run.
    private func openDestination() throws(AssetSyncError) -> (root: CacheRoot, lock: CacheLock) {
        let path: String
        switch CacheDirectory.resolve(request.destination) {
        case .success(let resolved): path = resolved
        case .failure(let problem): throw AssetSyncError(problem.kind, "destination \(QuotedValue.quote(request.destination)): \(problem.message)")
        }
        let root: CacheRoot
        do { root = try CacheRoot(resolvedPath: path) } catch { throw AssetSyncError(error, "cannot open the destination") }
        return (root, try lock(root))
    }

    /// The destination opened and locked, and the manifest: a file's or bytes' read first (a bad one
    /// leaves no destination made), a URL's fetched (conditionally) into the locked destination.
    func open(options: TransferOptions) throws(AssetSyncError) -> (root: CacheRoot, lock: CacheLock, manifest: Manifest) {
        let loaded = try localManifest()
        let (root, lock) = try openDestination()
        do {
            return (root, lock, try manifest(loaded, into: root, options: options))
        } catch {
            root.forgetWhatThisRunCreated()
            throw error
        }
    }

    /// A manifest read, or the URL of one to fetch into the destination once it is open.
    private enum Loaded {
        case read(Manifest)
        case toFetch(String)
    }

    /// The manifest from its file or bytes, read now; a URL's waits for the destination.
    private func localManifest() throws(AssetSyncError) -> Loaded {
        switch request.manifest {
        case .file(let path):
            return .read(try Self.read { () throws(ManifestError) in try ManifestReader.read(path: path) })
        case .bytes(let bytes, let name):
            let memory: MemoryFile
            do { memory = try MemoryFile.holding(bytes, name: name) } catch { throw AssetSyncError(error, "cannot hold the manifest \(name)") }
            return .read(try withExtendedLifetime(memory) { () throws(AssetSyncError) in
                try Self.read { () throws(ManifestError) in try ManifestReader.read(descriptor: memory.fd, name: name) }
            })
        case .url(let url):
            return .toFetch(url)
        }
    }

    /// The manifest `loaded` says, fetched into `root` when it is a URL's.
    private func manifest(_ loaded: Loaded, into root: CacheRoot, options: TransferOptions) throws(AssetSyncError) -> Manifest {
        switch loaded {
        case .read(let manifest): manifest
        case .toFetch(let url): try fetchManifest(url, into: root, options: options)
        }
    }

    /// The manifest at `url`, fetched into `root`'s copy (a 304 keeps the copy) and read.
    private func fetchManifest(_ url: String, into root: CacheRoot, options: TransferOptions) throws(AssetSyncError) -> Manifest {
        let fetched: ManifestFetcher.Fetched
        do {
            fetched = try ManifestFetcher(options: options, wakeFD: stop.wakeFD, shouldStop: stop.isRequested)
                .fetch(url, into: CachedManifestDestination(root: root, file: ManifestCopy.fileName))
        } catch {
            if stop.isRequested() { throw .cancelled }
            throw AssetSyncError(error, "cannot fetch the manifest \(url)")
        }
        return try Self.read { () throws(ManifestError) in try ManifestReader.read(path: fetched.path, displayName: url) }
    }

    /// A manifest read by `body`, or why not.
    private static func read(_ body: () throws(ManifestError) -> Manifest) throws(AssetSyncError) -> Manifest {
        do { return try body() } catch { throw AssetSyncError(error, nil) }
    }

    /// Other caches to copy files from, each opened once.
    func reuseSources() throws(AssetSyncError) -> [ReuseSource] {
        var sources: [ReuseSource] = []
        for path in request.reuseFrom {
            guard let source = ReuseSource(otherCacheAt: path) else { throw .invalid("reuse source \(QuotedValue.quote(path)) is not a directory that can be opened") }
            sources.append(source)
        }
        return sources
    }

    /// Pulls: every file of the manifest into the destination, proven before it is visible; in
    /// generations, into the next one, published only when every file is.
    func pull(events: any PullEvents, tell: (PullEvent) -> Void) throws(AssetSyncError) -> PullReport {
        let options = try options()
        let reuseFrom = try reuseSources()
        let asked: GenerationPull.Asked
        let keep: Int?
        switch request.layout {
        case .asBefore: (asked, keep) = (.asBefore, nil)
        case .generations(let kept):
            guard kept.map({ (1...1000).contains($0) }) ?? true else { throw .invalid("generations to keep must be 1 to 1000, not \(kept!)") }
            (asked, keep) = (.atomic, kept)
        case .plainDirectory: (asked, keep) = (.plain, nil)
        }
        let choice = GenerationPull.Choice(dest: request.destination, asked: asked, keep: keep)
        var locks: [CacheLock] = []
        defer { withExtendedLifetime(locks) {} }
        var generations: GenerationPull?
        if choice.touchesStore {
            let store = try openStore()
            locks.append(try lock(store.root))
            do { try GenerationPull.begin(store, choice: choice).forEach { tell(.warning($0)) } } catch { throw AssetSyncError(error, nil) }
            if choice.atomic {
                if store.destIsPlain { locks.append(try openDestination().lock) }
                generations = GenerationPull(store: store, choice: choice)
            }
        }
        let root: CacheRoot
        let manifest: Manifest
        if let generations {
            let loaded = try localManifest()
            do { root = try generations.build() } catch { throw AssetSyncError(error, nil) }
            locks.append(try lock(root))
            manifest = try self.manifest(loaded, into: root, options: options)
        } else {
            let opened = try open(options: options)
            (root, manifest) = (opened.root, opened.manifest)
            locks.append(opened.lock)
        }
        let outcome: PullSession.Outcome
        do {
            outcome = try PullSession(
                manifest: manifest, root: root, options: options, events: events, stop: stop,
                reuseFrom: (generations?.store.reuseSources() ?? []) + reuseFrom
            ).run(verifyAll: request.verifyEverything, deleteUpTo: deleteUpTo, index: generations?.store.buildIndex)
        } catch {
            throw AssetSyncError(error, root: root.path)
        }
        var report = PullReport(outcome)
        if let generations, report.succeeded {
            do { try generations.publish(root).forEach { tell(.warning($0)) } } catch { throw AssetSyncError(error, nil) }
            report.publishedGeneration = generations.store.current()
            if let published = report.publishedGeneration { tell(.published(generation: published)) }
        }
        return report
    }

    private var deleteUpTo: Int? {
        switch request.extras {
        case .keep: nil
        case .remove(let most): max(0, most)
        }
    }

    /// DEST's generation store, opened (made when missing) beside it.
    private func openStore() throws(AssetSyncError) -> GenerationStore {
        if case .failure(let problem) = GenerationStore.locate(request.destination) {
            throw AssetSyncError(problem.kind, "destination \(QuotedValue.quote(request.destination)): \(problem.message)")
        }
        do { return try GenerationStore(dest: request.destination) } catch {
            throw AssetSyncError(error, "cannot open the generations of \(QuotedValue.quote(request.destination))")
        }
    }

    /// Goes back to the generation before the current one, once it is found as its pull left it
    /// (by `stat`; reading every file too with `reading`); returns the generation shown now.
    func rollback(reading: Bool) throws(AssetSyncError) -> String {
        guard let mode = GenerationStore.rememberedMode(request.destination), !mode.leaving else {
            throw .invalid("\(QuotedValue.quote(request.destination)) is not in generations, so it has none to go back to")
        }
        let store = try openStore()
        let held = try lock(store.root)
        defer { withExtendedLifetime(held) {} }
        do { _ = try GenerationPull.finishInterruptedSteps(of: store) } catch { throw AssetSyncError(error, nil) }
        do { return try GenerationRollback.run(store, reading: reading) } catch { throw AssetSyncError(error, nil) }
    }

    /// What a pull would do, without changing anything but the lock file and a fetched manifest's copy.
    func plan() throws(AssetSyncError) -> PlanSummary {
        let options = try options()
        let (root, lock, manifest) = try open(options: options)
        defer { withExtendedLifetime(lock) {} }
        let listing: CacheListing
        do { listing = try CacheScanner.scan(root: root.path) } catch { throw AssetSyncError(error, "cannot scan the destination") }
        let proofs = StateIndex.load(from: root).proofs(for: manifest.entries)
        return PlanSummary(SyncPlan(manifest: manifest, cache: listing, proofs: proofs))
    }

    /// Reads every file of the manifest and proves it, whatever the state index says; records what was proven.
    func verify() throws(AssetSyncError) -> VerifyReport {
        let options = try options()
        let (root, lock, manifest) = try open(options: options)
        defer { withExtendedLifetime(lock) {} }
        let verdicts: [ContentCheck.Verdict]?
        do { verdicts = try Verification.run(manifest: manifest, root: root, until: stop.isRequested) } catch {
            throw AssetSyncError(error, "cannot record what was proven")
        }
        guard let verdicts else { throw .cancelled }
        return VerifyReport(manifest: manifest, verdicts: verdicts)
    }
}
