import AssetSyncCache
import AssetSyncManifestIO
import AssetSyncModel
import AssetSyncSystem
import AssetSyncTransfer
import AssetSyncTrust

extension PullRun {
    /// A manifest given on this machine, read on a thread of its own while the destination is opened,
    /// locked and walked (or, with trusted keys, read and admitted before anything else).
    final class LocalManifest {
        private let read: BackgroundWork<Result<Manifest, PullRunFailure>>
        /// The signature's check, when keys are trusted: its version is accepted once the destination is locked.
        let admitted: ManifestAdmission.Admitted?

        init(reading body: @escaping @Sendable () -> Result<Manifest, PullRunFailure>, admitted: ManifestAdmission.Admitted? = nil) {
            read = BackgroundWork(body)
            self.admitted = admitted
        }

        /// The manifest, waiting for the read.
        func manifest() throws(PullRunFailure) -> Manifest { try read.value().get() }

        /// Why the manifest cannot be used, waiting for the read; nil when it can. A bad manifest is
        /// the failure told, whatever is wrong with the destination too.
        var failure: PullRunFailure? {
            if case .failure(let own) = read.value() { return own }
            return nil
        }
    }

    /// The manifest given on this machine, admitted at once when keys are trusted and read in the
    /// background otherwise; nil for a URL, which is fetched into the destination once it is locked.
    func startReading(admission: ManifestAdmission?) throws(PullRunFailure) -> LocalManifest? {
        switch request.manifest {
        case .url:
            return nil
        case .path(let path):
            if let admission {
                let admitted = try Self.admitted { () throws(AdmissionFailure) in
                    try admission.admit(manifestAt: path, signatureAt: path + ".minisig", displayName: path, followingLinks: true)
                }
                return LocalManifest(reading: { .success(admitted.manifest) }, admitted: admitted)
            }
            return LocalManifest { Self.read { () throws(ManifestError) in try ManifestReader.read(path: path) } }
        case .descriptor(let fd, let name):
            return LocalManifest { Self.read { () throws(ManifestError) in try ManifestReader.read(descriptor: fd, name: name) } }
        case .bytes(let bytes, let name):
            return LocalManifest {
                Self.read { () throws(ManifestError) in
                    let memory: MemoryFile
                    do throws(SystemError) { memory = try MemoryFile.holding(bytes, name: name) } catch {
                        throw ManifestError(manifest: name, problem: "cannot be held in memory: \(error.reason)")
                    }
                    return try withExtendedLifetime(memory) { () throws(ManifestError) in try ManifestReader.read(descriptor: memory.fd, name: name) }
                }
            }
        }
    }

    /// What becomes of an admitted manifest's version: accepted for a locked destination (recorded
    /// when higher), or only checked against the one a destination accepted (a plan records nothing).
    enum VersionCheck {
        case accept(CacheRoot)
        case check(cacheAt: String)
    }

    /// A manifest read or fetched, and, when keys are trusted, its signature's check.
    struct Loaded {
        let manifest: Manifest
        let admitted: ManifestAdmission.Admitted?
    }

    /// The manifest: the local one once read, or the URL's fetched (with its signature, when keys are
    /// trusted) into `root`'s copies, or into a temporary file with no `root`.
    func manifest(local: LocalManifest?, admission: ManifestAdmission?, into root: CacheRoot?) throws(PullRunFailure) -> Loaded {
        if let local { return Loaded(manifest: try local.manifest(), admitted: local.admitted) }
        guard case .url(let url) = request.manifest else { preconditionFailure("a manifest is local or a URL") }
        let manifestCopy = try fetch(url, .manifest, into: root)
        guard let admission else {
            return Loaded(
                manifest: try Self.read { () throws(ManifestError) in try ManifestReader.read(path: manifestCopy.path, displayName: url) }.get(),
                admitted: nil)
        }
        let signatureCopy = try fetchSignature(ManifestAdmission.signatureURL(of: url), into: root)
        let admitted = try Self.admitted { () throws(AdmissionFailure) in
            try admission.admit(manifestAt: manifestCopy.path, signatureAt: signatureCopy?.path, displayName: url, followingLinks: false)
        }
        return Loaded(manifest: admitted.manifest, admitted: admitted)
    }

    /// A signed manifest's version, accepted for a locked destination (recorded when higher), or only
    /// checked against the one the destination at a path accepted (a plan records nothing).
    func checkVersion(of loaded: Loaded, admission: ManifestAdmission?, _ check: VersionCheck) throws(PullRunFailure) {
        guard let admission, let admitted = loaded.admitted else { return }
        let name = request.manifestName
        switch check {
        case .accept(let root):
            try Self.admitted { () throws(AdmissionFailure) in try admission.acceptVersion(of: admitted, root: root, manifest: name) }
        case .check(let path):
            try Self.admitted { () throws(AdmissionFailure) in try admission.checkVersion(of: admitted, cacheAt: path, manifest: name) }
        }
    }

    /// A fetched file: `root`'s copy, or a temporary file with no `root`, removed with this value.
    struct FetchedCopy {
        let path: String
        let temporary: TemporaryFile?
    }

    /// Fetches `url` into `root`'s copy of `file` (conditionally), or into a temporary file with no `root`.
    private func fetch(_ url: String, _ file: PullRunFailure.FetchedFile, into root: CacheRoot?) throws(PullRunFailure) -> FetchedCopy {
        let options = try transferOptions(namesStore: URLRules.isObjectStoreURL(url))
        do { return try fetched(url, file, into: root, options: options) } catch {
            if effects.stop.isRequested() { throw .interrupted }
            throw .fetch(url: url, file, error)
        }
    }

    /// As `fetch` for a manifest's signature, but nil when there is none (404 or 410); an answer too
    /// long to be a signature is a refusal.
    private func fetchSignature(_ url: String, into root: CacheRoot?) throws(PullRunFailure) -> FetchedCopy? {
        let options = try transferOptions(namesStore: URLRules.isObjectStoreURL(url))
        do {
            return try fetched(url, .signature, into: root, options: options)
        } catch {
            if effects.stop.isRequested() { throw .interrupted }
            if error.status == 404 || error.status == 410 { return nil }
            if let limit = error.sizeLimitExceeded {
                throw .untrusted(TrustRefusal(.malformed("it is larger than \(limit) bytes")), manifest: request.manifestName)
            }
            throw .fetch(url: url, .signature, error)
        }
    }

    private func fetched(
        _ url: String, _ file: PullRunFailure.FetchedFile, into root: CacheRoot?, options: TransferOptions
    ) throws(ManifestFetcher.Failure) -> FetchedCopy {
        let (name, sizeLimit) = switch file {
        case .manifest: (ManifestCopy.fileName, Manifest.sizeLimit)
        case .signature: (ManifestCopy.signatureName, Int64(MinisignSignature.fileSizeLimit))
        }
        let destination: any ManifestDestination
        var temporary: TemporaryFile?
        if let root {
            destination = CachedManifestDestination(root: root, file: name)
        } else {
            temporary = TemporaryFile(in: effects.temporaryDirectory, prefix: "assetsync-manifest")
            guard let temporary else {
                throw ManifestFetcher.Failure(description: "cannot make a temporary file in \(effects.temporaryDirectory): \(SystemError("mkstemp").reason)")
            }
            destination = ManifestFile(path: temporary.path)
        }
        let fetched = try ManifestFetcher(options: options, sizeLimit: sizeLimit, stop: effects.stop, transport: effects.transport, clock: effects.clock)
            .fetch(url, into: destination)
        return FetchedCopy(path: fetched.path, temporary: temporary)
    }

    /// What `body` gives, or its failure as the run's.
    static func admitted<Value>(_ body: () throws(AdmissionFailure) -> Value) throws(PullRunFailure) -> Value {
        do {
            return try body()
        } catch {
            switch error {
            case .manifestUnreadable(let name, let failure): throw .manifestUnreadable(name, reason: failure.reason)
            case .manifestTooLarge(let name): throw .manifestTooLarge(name)
            case .invalid(let failure): throw .manifest(failure)
            case .signatureUnreadable(let path, let failure): throw .signatureUnreadable(path, reason: failure.reason, kind: failure.kind)
            case .refused(let refusal, let name): throw .untrusted(refusal, manifest: name)
            case .versionUnreadable(let failure): throw .versionUnreadable(failure)
            case .versionUnrecorded(let failure): throw .versionUnrecorded(failure)
            }
        }
    }

    /// A manifest read by `body`, or why not.
    static func read(_ body: () throws(ManifestError) -> Manifest) -> Result<Manifest, PullRunFailure> {
        do { return .success(try body()) } catch { return .failure(.manifest(error)) }
    }
}

extension SyncRequest {
    /// The manifest as errors name it: its path, its URL, or the name of its bytes.
    package var manifestName: String {
        switch manifest {
        case .path(let path): path
        case .url(let url): url
        case .descriptor(_, let name), .bytes(_, let name): name
        }
    }
}
