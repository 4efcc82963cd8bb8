import AssetSyncTrust
import AssetSyncCache
package import AssetSyncModel
import AssetSyncSystem
package import AssetSyncTransfer

/// One request carried out by the layers, the use case both the library's façade and the command
/// line run: the trusted keys loaded, the manifest read (or fetched) and admitted, the destination
/// opened and locked in the layout asked, then the pull, the plan or the verification. It blocks the
/// calling thread. Every failure is one `PullRunFailure`, which the caller words.
package struct PullRun: Sendable {
    /// What the run takes from its process: the stop source, the clocks, where temporary files go,
    /// and the transport of every request.
    package struct Effects: Sendable {
        package var stop: StopSource
        /// Monotonic seconds: every wait and duration.
        package var clock: @Sendable () -> Double = MonotonicClock.now
        /// Seconds since the epoch: a signature's expiry.
        package var now: @Sendable () -> Int64 = WallClock.now
        /// Where a manifest fetched with no destination to keep it in goes (a plan).
        package var temporaryDirectory = "/tmp"
        /// What carries the requests: of the files, and of a remote manifest and its signature.
        package var transport: any Transport = CurlTransport()

        package init(stop: StopSource) { self.stop = stop }
    }

    package let request: SyncRequest
    package let effects: Effects

    package init(_ request: SyncRequest, effects: Effects) {
        self.request = request
        self.effects = effects
    }

    /// What `body` gives; a refusal of the manifest is told to `events` before it is thrown.
    func telling<Value>(_ events: any PullEvents, _ body: () throws(PullRunFailure) -> Value) throws(PullRunFailure) -> Value {
        do {
            return try body()
        } catch {
            if case .untrusted(let refusal, let manifest) = error { events.refused(refusal, manifest: manifest) }
            throw error
        }
    }

    /// The admission the trusted keys ask for; nil when none are given.
    func admission() throws(PullRunFailure) -> ManifestAdmission? {
        guard !request.trustedKeyFiles.isEmpty else { return nil }
        switch request.manifest {
        case .descriptor(_, let name), .bytes(_, let name): throw .unsignable(name)
        case .path, .url: break
        }
        var keys: [MinisignPublicKey] = []
        for file in request.trustedKeyFiles {
            do { keys += try ManifestAdmission.keys(inFile: file) } catch {
                let problem: PullRunFailure.KeyFileProblem = switch error {
                case .unreadable(let failure): .unreadable(failure.reason)
                case .notRead(let reason): .notRead(reason.words, notARegularFile: { if case .notRegular = reason { true } else { false } }())
                case .malformed(let text): .malformed(text)
                }
                throw .keyFile(file, problem)
            }
        }
        return ManifestAdmission(keys: keys, now: effects.now)
    }

    /// The destination, resolved.
    func resolvedDest() throws(PullRunFailure) -> String {
        switch CacheDirectory.resolve(request.dest) {
        case .success(let resolved): return resolved
        case .failure(let problem): throw .destination(request.dest, problem)
        }
    }

    /// The destination opened (made when missing) with its `.assetsync/`.
    func openDest() throws(PullRunFailure) -> CacheRoot {
        let path = try resolvedDest()
        do { return try CacheRoot(resolvedPath: path) } catch {
            throw .destinationUnopenable(error, isSystem: { if case .system = error { true } else { false } }())
        }
    }

    /// The generation store of the destination `dest`, opened (made when missing) beside it.
    static func openStore(_ dest: String) throws(PullRunFailure) -> GenerationStore {
        if case .failure(let problem) = GenerationStore.locate(dest) { throw .storeUnplaceable(dest, problem) }
        do { return try GenerationStore(dest: dest) } catch { throw .storeUnopenable(dest, error) }
    }

    /// `root`'s lock, waited for up to `lockWait` seconds.
    func lock(_ root: CacheRoot) throws(PullRunFailure) -> CacheLock { try Self.lock(root, wait: request.lockWait, effects: effects) }

    /// `root`'s lock, waited for up to `wait` seconds.
    static func lock(_ root: CacheRoot, wait: Double, effects: Effects) throws(PullRunFailure) -> CacheLock {
        do {
            return try CacheLock(root: root, wait: wait, stop: effects.stop, clock: effects.clock)
        } catch {
            guard case .held = error else { throw .lockFailed(error) }
            if effects.stop.isRequested() { throw .interrupted }
            throw .lockHeld(error, wait: wait)
        }
    }

    /// The other caches to reuse files from, each opened once.
    func reuseSources() throws(PullRunFailure) -> [ReuseSource] {
        var sources: [ReuseSource] = []
        for path in request.reuseFrom {
            guard let source = ReuseSource(otherCacheAt: path) else { throw .reuseSource(path) }
            sources.append(source)
        }
        return sources
    }
}
