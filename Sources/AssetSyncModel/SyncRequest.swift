/// What a pull, a plan or a verification is to do: the manifest, the destination, and how, in the
/// terms of the layers (the library's `PullRequest` and the command line's arguments both become one).
package struct SyncRequest: Sendable {
    /// Where the manifest comes from.
    package enum ManifestSource: Sendable {
        case path(String)
        /// An open descriptor (the command line's standard input), named `name` in errors.
        case descriptor(Int32, name: String)
        case bytes([UInt8], name: String)
        case url(String)
    }

    /// Whether the destination is a plain directory or a symlink to generations kept beside it.
    package enum Layout: Sendable {
        /// In generations from now on (`--atomic`).
        case atomic
        /// A plain directory from now on (`--no-atomic`).
        case plain
        /// As the store remembers: in generations when it records the mode.
        case asBefore
    }

    /// The most extras a pull removes when no other maximum is given (`--max-delete`).
    package static let defaultDeleteMaximum = 1000

    package var manifest: ManifestSource
    /// The destination as given (it may be a symlink, resolved once).
    package var dest: String
    package var layout = Layout.asBefore
    /// Generations to keep; nil for the remembered number (or the default).
    package var keep: Int?
    /// Files of minisign public keys: when any is given, only a manifest signed by one is accepted.
    package var trustedKeyFiles: [String] = []
    /// Other caches whose files may be copied instead of downloaded.
    package var reuseFrom: [String] = []
    package var options = TransferOptions()
    /// The S3-compatible store settings, resolved into `options.objectStore` when the manifest names a store.
    package var objectStorage = ObjectStorageRequest()
    /// Read and prove every present file again, whatever the state index says.
    package var verifyAll = false
    /// Remove extras, at most this many.
    package var deleteUpTo: Int?
    /// Seconds to wait for another run's lock.
    package var lockWait = 0.0
    /// Seconds of a random wait before the first request, so that a fleet started together spreads out.
    package var splay = 0.0

    package init(manifest: ManifestSource, dest: String) {
        self.manifest = manifest
        self.dest = dest
    }
}
