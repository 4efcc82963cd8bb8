import AssetSyncCache
import AssetSyncManifestIO
import AssetSyncModel
import AssetSyncPull
import AssetSyncSystem
import AssetSyncTransfer
import AssetSyncTrust
import Glibc

/// One request carried out by the library's layers, on the calling thread (which may block): the
/// destination opened and locked, the manifest read or fetched into it, then the pull, the plan or
/// the verification. Each step's failure becomes one `AssetSyncError`.
struct RequestRun {
    let request: PullRequest
    let stop: StopSource

    /// The destination as the request names it.
    private var access: DestinationAccess {
        DestinationAccess(destination: request.destination, lockWaitSeconds: request.lockWaitSeconds, stop: stop)
    }

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

    /// The destination opened and locked, and the manifest: a file's or bytes' read first (a bad one
    /// leaves no destination made), a URL's fetched (conditionally) into the locked destination.
    func open(options: TransferOptions) throws(AssetSyncError) -> (root: CacheRoot, lock: CacheLock, manifest: Manifest) {
        let loaded = try localManifest()
        let (root, lock) = try access.openDestination()
        do {
            return (root, lock, try manifest(loaded, into: root, options: options))
        } catch {
            root.forgetWhatThisRunCreated()
            throw error
        }
    }

    /// A manifest read (admitted by its signature, when keys are trusted), or the URL of one to fetch
    /// into the destination once it is open.
    private enum Loaded {
        case read(Manifest, ManifestAdmission.Admitted?)
        case toFetch(String)
    }

    /// The admission the request's trusted keys ask for; nil when it names none.
    private func admission() throws(AssetSyncError) -> ManifestAdmission? {
        guard !request.trustedKeyFiles.isEmpty else { return nil }
        var keys: [MinisignPublicKey] = []
        for file in request.trustedKeyFiles {
            do { keys += try ManifestAdmission.keys(inFile: file) } catch {
                let why: String
                switch error {
                case .unreadable(let failure): why = "cannot be read: \(failure.reason)"
                case .notRead(let reason): why = reason.words
                case .malformed(let problem): why = "holds no public key: " + problem
                }
                throw .invalid("the trusted key file \(QuotedValue.quote(file)) \(why)")
            }
        }
        return ManifestAdmission(keys: keys, now: { Int64(time(nil)) })
    }

    /// The manifest from its file or bytes, read now; a URL's waits for the destination.
    private func localManifest() throws(AssetSyncError) -> Loaded {
        if let admission = try admission() {
            switch request.manifest {
            case .file(let path):
                let admitted = try Self.admitted { () throws(AdmissionFailure) in
                    try admission.admit(manifestAt: path, signatureAt: path + ".minisig", displayName: path, followingLinks: true)
                }
                return .read(admitted.manifest, admitted)
            case .bytes(_, let name):
                throw .invalid("the manifest \(name) is given as bytes, with no signature beside it: trusted keys need a file or a URL")
            case .url(let url):
                return .toFetch(url)
            }
        }
        switch request.manifest {
        case .file(let path):
            return .read(try Self.read { () throws(ManifestError) in try ManifestReader.read(path: path) }, nil)
        case .bytes(let bytes, let name):
            let memory: MemoryFile
            do { memory = try MemoryFile.holding(bytes, name: name) } catch { throw AssetSyncError(error, "cannot hold the manifest \(name)") }
            return .read(try withExtendedLifetime(memory) { () throws(AssetSyncError) in
                try Self.read { () throws(ManifestError) in try ManifestReader.read(descriptor: memory.fd, name: name) }
            }, nil)
        case .url(let url):
            return .toFetch(url)
        }
    }

    /// The manifest `loaded` says, fetched into `root` when it is a URL's (with its signature, when
    /// keys are trusted); a signed one's version is accepted for `root`, whose lock is held.
    private func manifest(_ loaded: Loaded, into root: CacheRoot, options: TransferOptions) throws(AssetSyncError) -> Manifest {
        guard let admission = try admission() else {
            switch loaded {
            case .read(let manifest, _): return manifest
            case .toFetch(let url): return try fetchManifest(url, into: root, options: options)
            }
        }
        let admitted: ManifestAdmission.Admitted
        let name: String
        switch loaded {
        case .read(_, let local?):
            (admitted, name) = (local, root.path)
        case .read(let manifest, nil):
            return manifest
        case .toFetch(let url):
            let manifestPath = try fetch(url, file: ManifestCopy.fileName, sizeLimit: Manifest.sizeLimit, into: root, options: options)
            // None there (404): the admission refuses the manifest as unsigned.
            let signaturePath = try fetchIfThere(
                ManifestAdmission.signatureURL(of: url), file: ManifestCopy.signatureName, sizeLimit: Int64(MinisignSignature.fileSizeLimit),
                into: root, options: options)
            admitted = try Self.admitted { () throws(AdmissionFailure) in
                try admission.admit(manifestAt: manifestPath, signatureAt: signaturePath, displayName: url, followingLinks: false)
            }
            name = url
        }
        try Self.admitted { () throws(AdmissionFailure) in try admission.acceptVersion(of: admitted, root: root, manifest: name) }
        return admitted.manifest
    }

    /// What `body` gives, or its failure as the one public error: a refusal is `untrusted`.
    private static func admitted<Value>(_ body: () throws(AdmissionFailure) -> Value) throws(AssetSyncError) -> Value {
        do {
            return try body()
        } catch {
            switch error {
            case .manifestUnreadable(let name, let failure): throw AssetSyncError(.invalidInput, "\(name): cannot read the manifest: \(failure.reason)")
            case .manifestTooLarge(let name): throw AssetSyncError(.invalidInput, "\(name): the manifest is larger than its limit")
            case .invalid(let failure): throw AssetSyncError(failure, nil)
            case .signatureUnreadable(let path, let failure): throw AssetSyncError(failure, "cannot read the signature \(path)")
            case .refused(let refusal, let name):
                throw AssetSyncError(.untrusted, "the manifest \(name) is not trustworthy: \(refusal.description); no file was downloaded or changed")
            case .versionUnreadable(let failure): throw AssetSyncError(failure, "cannot read the accepted manifest version")
            case .versionUnrecorded(let failure): throw AssetSyncError(failure, "cannot record the accepted manifest version")
            }
        }
    }

    /// The manifest at `url`, fetched into `root`'s copy (a 304 keeps the copy) and read.
    private func fetchManifest(_ url: String, into root: CacheRoot, options: TransferOptions) throws(AssetSyncError) -> Manifest {
        let path = try fetch(url, file: ManifestCopy.fileName, sizeLimit: Manifest.sizeLimit, into: root, options: options)
        return try Self.read { () throws(ManifestError) in try ManifestReader.read(path: path, displayName: url) }
    }

    /// How a fetch of a file that may be missing ended short.
    private enum FetchFailure: Error {
        /// 404 or 410.
        case notThere
        case failed(AssetSyncError)
    }

    /// `url` fetched into `root`'s copy named `file` (conditionally), at most `sizeLimit` bytes; the copy's path.
    private func fetch(_ url: String, file: String, sizeLimit: Int64, into root: CacheRoot, options: TransferOptions) throws(AssetSyncError) -> String {
        do {
            return try fetched(url, file: file, sizeLimit: sizeLimit, into: root, options: options)
        } catch {
            switch error {
            case .notThere: throw AssetSyncError(kind: .remote, message: "cannot fetch \(url): HTTP 404, not there")
            case .failed(let failure): throw failure
            }
        }
    }

    /// As `fetch`, but nil when the server says there is no such file.
    private func fetchIfThere(_ url: String, file: String, sizeLimit: Int64, into root: CacheRoot, options: TransferOptions) throws(AssetSyncError) -> String? {
        do {
            return try fetched(url, file: file, sizeLimit: sizeLimit, into: root, options: options)
        } catch {
            switch error {
            case .notThere: return nil
            case .failed(let failure): throw failure
            }
        }
    }

    private func fetched(_ url: String, file: String, sizeLimit: Int64, into root: CacheRoot, options: TransferOptions) throws(FetchFailure) -> String {
        do {
            return try ManifestFetcher(options: options, sizeLimit: sizeLimit, stop: stop)
                .fetch(url, into: CachedManifestDestination(root: root, file: file)).path
        } catch {
            if stop.isRequested() { throw .failed(.cancelled) }
            if error.status == 404 || error.status == 410 { throw .notThere }
            throw .failed(AssetSyncError(error, "cannot fetch \(url)"))
        }
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
            let store = try access.openStore()
            locks.append(try access.lock(store.root))
            do { try GenerationPull.begin(store, choice: choice).forEach { tell(.warning($0)) } } catch { throw AssetSyncError(error, nil) }
            if choice.atomic {
                if store.destIsPlain { locks.append(try access.openDestination().lock) }
                generations = GenerationPull(store: store, choice: choice)
            }
        }
        let root: CacheRoot
        let manifest: Manifest
        if let generations {
            let loaded = try localManifest()
            do { root = try generations.build() } catch { throw AssetSyncError(error, nil) }
            locks.append(try access.lock(root))
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
