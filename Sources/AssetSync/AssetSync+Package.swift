import AssetSyncModel
import AssetSyncPull
import AssetSyncSystem
import AssetSyncTrust

/// What a client in this package that runs requests on its own thread (the command line) gives the
/// library from its process: the stop request (its signals), the monotonic clock, and `TMPDIR`.
package struct ProcessEffects: Sendable {
    package var stop: StopSource
    package var clock: @Sendable () -> Double
    /// Where a manifest fetched with no destination to keep it in goes (a plan).
    package var temporaryDirectory: String

    package init(stop: StopSource, clock: @escaping @Sendable () -> Double, environment: [String: String]) {
        self.stop = stop
        self.clock = clock
        temporaryDirectory = TemporaryFile.directory(in: environment)
    }

    /// The Pull layer's effects: these, with the wall clock and the curl transport.
    var run: PullRun.Effects {
        var effects = PullRun.Effects(stop: stop)
        effects.clock = clock
        effects.temporaryDirectory = temporaryDirectory
        return effects
    }
}

/// The same use cases the public entry points run, for a client in this package that words every
/// failure itself and renders the pipeline's own events (the command line): each runs on the calling
/// thread, which it blocks, and throws the layers' typed `PullRunFailure`.
extension AssetSync {
    /// The process-wide set-up (libcurl's, libxml2's), once; why it failed, or nil.
    package static func setUpProcess() -> (any ExplainedError)? { Runtime.setUpFailure }

    /// Monotonic seconds, the clock every wait and rate is measured by.
    package static let monotonicClock: @Sendable () -> Double = MonotonicClock.now

    package static func pull(
        _ request: SyncRequest, in effects: ProcessEffects, events: any PullEvents
    ) throws(PullRunFailure) -> PullResult {
        try PullRun(request, effects: effects.run).pull(events: events)
    }

    package static func plan(_ request: SyncRequest, in effects: ProcessEffects, events: any PullEvents) throws(PullRunFailure) -> PlanResult {
        try PullRun(request, effects: effects.run).plan(events: events)
    }

    package static func verify(_ request: SyncRequest, in effects: ProcessEffects, events: any PullEvents) throws(PullRunFailure) -> VerifyResult {
        try PullRun(request, effects: effects.run).verify(events: events)
    }

    package static func rollback(
        dest: String, reading: Bool, lockWait: Double, in effects: ProcessEffects, events: any PullEvents
    ) throws(PullRunFailure) -> (dest: String, shows: String) {
        try PullRun.rollback(dest: dest, reading: reading, lockWait: lockWait, effects: effects.run, events: events)
    }
}

/// A manifest file's bytes, read once to be checked and then signed: what is signed is what was checked.
package struct ManifestToSign {
    let memory: MemoryFile
}

/// A minisign secret key, read (and decrypted) to sign with.
package struct SigningKey {
    let key: MinisignSecretKey
    /// Its key id, as minisign prints it.
    package var id: String { key.id.description }
}

/// The publishing side, for the command line: each step on the calling thread, throwing the layers'
/// typed `PublishFailure`.
extension AssetSync {
    /// Seconds since the epoch.
    package static let wallClock: @Sendable () -> Int64 = WallClock.now

    /// The directory at `directory` as a manifest under `base`, and its text in `format` (a Metalink's
    /// with every file's SHA-256, whatever `withSHA256` says).
    package static func describe(
        directory: String, base: String, withSHA256: Bool, chunks: Bool, format: ManifestFormat
    ) throws(PublishFailure) -> (manifest: Manifest, text: String) {
        try ManifestPublishing.checkBase(base, for: format.written)
        let manifest = try ManifestPublishing.describe(directory, base: base, withSHA256: withSHA256 || format == .metalink, chunks: chunks)
        return (manifest, ManifestPublishing.text(of: manifest, format: format.written))
    }

    /// Replaces the file at `path` with `text` atomically.
    package static func write(_ text: String, to path: String) throws(PublishFailure) { try ManifestPublishing.write(text, to: path) }

    /// The manifest file at `path`, read once and checked.
    package static func manifestToSign(at path: String) throws(PublishFailure) -> ManifestToSign {
        ManifestToSign(memory: try ManifestPublishing.manifestToSign(at: path))
    }

    /// The secret key in the file at `path`; `password` is asked only for an encrypted one.
    package static func signingKey(at path: String, password: () -> [UInt8]?) throws(PublishFailure) -> SigningKey {
        SigningKey(key: try ManifestPublishing.secretKey(at: path, password: password))
    }

    /// Signs the manifest read from `path` into `path.minisig`; that path.
    package static func sign(_ manifest: ManifestToSign, of path: String, with key: SigningKey, version: UInt64, expires: Int64?) throws(PublishFailure) -> String {
        try ManifestPublishing.sign(manifest.memory.bytes, of: path, with: key.key, version: version, expires: expires)
    }

    /// Signs `text`, the manifest just written at `path`, into `path.minisig`; that path.
    package static func sign(text: String, of path: String, with key: SigningKey, version: UInt64, expires: Int64?) throws(PublishFailure) -> String {
        let bytes = Array(text.utf8)
        let signed: Result<String, PublishFailure> = bytes.withUnsafeBytes { raw in
            Result { () throws(PublishFailure) in try ManifestPublishing.sign(raw, of: path, with: key.key, version: version, expires: expires) }
        }
        return try signed.get()
    }
}

/// Small services of the system layer the command line's renderers and its metrics file need.
extension AssetSync {
    /// Pieces `0..<count` in order: this thread does each even one with `even` (which hands on its
    /// own output), while a thread of its own makes the odd ones with `odd`, a piece or two ahead,
    /// each handed to `take` in its turn. The output is the same as one thread's, made by two. False,
    /// having done nothing, when no thread could be had.
    package static func alternating<Piece>(count: Int, even: (Int) -> Void, odd: @escaping (Int) -> Piece, take: (Piece) -> Void) -> Bool {
        let made = HandoffQueue<Piece>(capacity: 2)
        guard let helper = JoinableThread({ for number in stride(from: 1, to: count, by: 2) { _ = made.put(odd(number)) } }) else { return false }
        for number in 0..<count {
            if number % 2 == 0 { even(number) } else { take(made.take()!) }
        }
        helper.join()
        return true
    }

    /// Replaces the file at `path` with `text` atomically (a temporary beside it, then a rename); why
    /// not, in the system's words, or nil once it is done.
    package static func replaceFile(at path: String, with text: String) -> String? {
        do { try AtomicFile.write(text, to: path) } catch { return error.reason }
        return nil
    }

    /// The text of the regular file at `path`, at most `limit` bytes, read without following a link; nil for anything else.
    package static func smallFile(at path: String, limit: Int) -> String? {
        let bytes = (try? AtomicFile.read(at: path, limit: limit)) ?? nil
        return bytes.flatMap { String(validating: $0, as: UTF8.self) }
    }

    /// Whether this process may read the file at `path`.
    package static func isReadable(_ path: String) -> Bool { PathName.isReadable(path) }

    /// A bucket's prefix (`s3://BUCKET/PREFIX`) described as a manifest under `base` (nil: the
    /// prefix itself), its text in `format`, and how each object was described: by the CRC-32
    /// its store keeps, or streamed and hashed.
    package static func describe(
        bucket location: String, base: String?, withSHA256: Bool, format: ManifestFormat, options: TransferOptions,
        objectStorage: ObjectStorageRequest, stop: StopSource, temporaryDirectory: String
    ) throws(PublishFailure) -> (manifest: Manifest, text: String, tally: BucketTally) {
        try ManifestPublishing.checkBase(base ?? location, for: format.written)
        let described = try BucketDescription.describe(
            location, base: base, withSHA256: withSHA256 || format == .metalink, options: options, objectStorage: objectStorage,
            stop: stop, temporaryDirectory: temporaryDirectory)
        return (described.manifest, ManifestPublishing.text(of: described.manifest, format: format.written), described.tally)
    }

    /// The process's environment variables.
    package static func processEnvironment() -> [String: String] { ProcessEnvironment.variables() }

    /// `path` made absolute against the working directory.
    package static func absolute(_ path: String) -> String { PathName.absolute(path) }

    /// Seconds since the epoch, with their fraction.
    package static func preciseWallClock() -> Double { WallClock.preciseNow() }
}
