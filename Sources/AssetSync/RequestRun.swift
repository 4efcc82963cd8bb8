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

    /// The destination, resolved once and opened (made when missing), and locked for the run.
    private func openDestination() throws(AssetSyncError) -> (root: CacheRoot, lock: CacheLock) {
        let path: String
        switch CacheDirectory.resolve(request.destination) {
        case .success(let resolved): path = resolved
        case .failure(let problem): throw AssetSyncError(problem.kind, "destination \(QuotedValue.quote(request.destination)): \(problem.message)")
        }
        let root: CacheRoot
        do { root = try CacheRoot(resolvedPath: path) } catch { throw AssetSyncError(error, "cannot open the destination") }
        do {
            return (root, try CacheLock(root: root, wait: request.lockWaitSeconds, shouldStop: stop.isRequested))
        } catch {
            if stop.isRequested() { throw .cancelled }
            throw AssetSyncError(error, "cannot lock the destination")
        }
    }

    /// The destination opened and locked, and the manifest: a file's or bytes' read first (a bad one
    /// leaves no destination made), a URL's fetched (conditionally) into the locked destination.
    func open(options: TransferOptions) throws(AssetSyncError) -> (root: CacheRoot, lock: CacheLock, manifest: Manifest) {
        let local: Manifest?
        switch request.manifest {
        case .file(let path):
            local = try Self.read { () throws(ManifestError) in try ManifestReader.read(path: path) }
        case .bytes(let bytes, let name):
            let memory: MemoryFile
            do { memory = try MemoryFile.holding(bytes, name: name) } catch { throw AssetSyncError(error, "cannot hold the manifest \(name)") }
            local = try withExtendedLifetime(memory) { () throws(AssetSyncError) in
                try Self.read { () throws(ManifestError) in try ManifestReader.read(descriptor: memory.fd, name: name) }
            }
        case .url:
            local = nil
        }
        let (root, lock) = try openDestination()
        guard case .url(let url) = request.manifest else { return (root, lock, local!) }
        do {
            return (root, lock, try fetchManifest(url, into: root, options: options))
        } catch {
            root.forgetWhatThisRunCreated()
            throw error
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

    /// Pulls: every file of the manifest into the destination, proven before it is visible.
    func pull(events: any PullEvents) throws(AssetSyncError) -> PullReport {
        let options = try options()
        let reuseFrom = try reuseSources()
        let (root, lock, manifest) = try open(options: options)
        defer { withExtendedLifetime(lock) {} }
        let deleteUpTo: Int?
        switch request.extras {
        case .keep: deleteUpTo = nil
        case .remove(let most): deleteUpTo = max(0, most)
        }
        let outcome: PullSession.Outcome
        do {
            outcome = try PullSession(manifest: manifest, root: root, options: options, events: events, stop: stop, reuseFrom: reuseFrom)
                .run(verifyAll: request.verifyEverything, deleteUpTo: deleteUpTo)
        } catch {
            throw AssetSyncError(error, root: root.path)
        }
        return PullReport(outcome)
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
