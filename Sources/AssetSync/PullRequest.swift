/// What a pull, a plan or a verification is to work on: the manifest, the cache directory it keeps
/// identical to it, and how.
///
/// ```swift
/// var request = PullRequest(manifest: .url("https://cdn.example.com/game/manifest.json"), destination: "/var/cache/game")
/// request.network.jobs = 4
/// let report = try await AssetSync.pull(request)
/// ```
public struct PullRequest: Sendable {
    /// Where the manifest comes from.
    public enum Manifest: Sendable, Equatable {
        /// A manifest file on this machine (XML or JSON, optionally gzip-compressed).
        case file(String)
        /// A manifest's bytes already in memory, named `name` in errors.
        case bytes([UInt8], name: String)
        /// An `http` or `https` URL, fetched under the same rules as the files (and kept in the
        /// cache directory, so that the next fetch is conditional).
        case url(String)
    }

    /// Whether the destination is a plain directory, or a symlink to a complete generation kept
    /// beside it (`DEST.assetsync/`) that a pull replaces as a whole, with one rename, once every file
    /// is proven.
    public enum Layout: Sendable, Equatable {
        /// As an earlier pull left it: in generations when one made it so, else a plain directory.
        case asBefore
        /// In generations from now on (remembered, so that later pulls stay so), keeping `keep`
        /// generations for `AssetSync.rollback` (nil: as remembered, else 2).
        case generations(keep: Int?)
        /// A plain directory from now on: the current generation becomes the directory, every file kept.
        case plainDirectory
    }

    /// What becomes of files in the destination that the manifest does not list.
    public enum Extras: Sendable, Equatable {
        /// They stay.
        case keep
        /// They are removed once every file is in place, but never more than `atMost` of them, and only
        /// in a directory an earlier pull completed (one that has a state index).
        case remove(atMost: Int)
    }

    /// Where the manifest comes from.
    public var manifest: Manifest
    /// The cache directory. It may be a symlink (to another volume), resolved once at the start.
    public var destination: String
    /// Read and prove every present file again rather than trusting the state index.
    public var layout = Layout.asBefore
    public var verifyEverything = false
    /// What becomes of files the manifest does not list: by default they stay.
    public var extras = Extras.keep
    /// How long to wait for another run's lock on the destination before failing with
    /// `AssetSyncError.Kind.lockHeld`; 0 fails at once.
    public var lockWaitSeconds = 0.0
    /// Other cache directories whose files may be copied (and proven) instead of downloaded.
    public var reuseFrom: [String] = []
    /// How the manifest, when it is a URL, and the files are fetched.
    public var network = NetworkSettings()
    /// Files of minisign public keys. When any is given, only a manifest whose bytes carry a signature
    /// by one of the keys (`MANIFEST.minisig` beside a file, `URL.minisig` for a URL) is accepted, not
    /// expired and not older than the version the destination accepted last; anything else fails with
    /// `AssetSyncError.Kind.untrusted` before any file is touched. A manifest given as bytes has no
    /// signature beside it, so it cannot be trusted this way.
    public var trustedKeyFiles: [String] = []

    /// A request for `manifest` into `destination`, the rest as the defaults: the state index
    /// trusted, extras kept, no wait for the lock, no other caches, the default network settings.
    public init(manifest: Manifest, destination: String) {
        self.manifest = manifest
        self.destination = destination
    }
}
