/// Why a request (a pull, a plan, a verification or a rollback) could not go on, before or around its
/// files' work, in terms every caller can word: the library without flag names, the command line
/// with them. Which one a run reports when several apply is decided where it runs, once: a local
/// manifest's own failure before any of the destination's.
package enum PullRunFailure: Error {
    /// A file of trusted keys gave none.
    case keyFile(String, KeyFileProblem)
    /// Trusted keys were given for a manifest with no signature beside it (standard input, bytes): its name.
    case unsignable(String)
    /// The manifest could not be read, or is not a valid one.
    case manifest(ManifestError)
    /// With trusted keys: the manifest's bytes could not be read (its name, why).
    case manifestUnreadable(String, reason: String)
    /// With trusted keys: the manifest is larger than `Manifest.sizeLimit`.
    case manifestTooLarge(String)
    /// The signature at the path could not be read.
    case signatureUnreadable(String, reason: String, kind: ErrorKind)
    /// The manifest is not trustworthy under the trusted keys.
    case untrusted(TrustRefusal, manifest: String)
    /// The version the destination accepted could not be read, or the new one recorded.
    case versionUnreadable(any ExplainedError)
    case versionUnrecorded(any ExplainedError)
    /// The manifest at the URL (or its signature) could not be fetched.
    case fetch(url: String, FetchedFile, any ExplainedError)
    /// The destination, as given, cannot be resolved to a directory to use.
    case destination(String, any ExplainedError)
    /// The destination (or the generation built in it) could not be opened or made; `isSystem` when a
    /// system call failed (most often permissions), rather than something in the way.
    case destinationUnopenable(any ExplainedError, isSystem: Bool)
    /// The destination's generation store cannot be placed beside it, as given.
    case storeUnplaceable(String, any ExplainedError)
    /// The destination's generation store could not be opened.
    case storeUnopenable(String, any ExplainedError)
    /// A step of the generations failed: beginning, building or publishing.
    case generations(any ExplainedError)
    /// A number of generations to keep was asked for a destination that is not, and is not to become, in generations.
    case keepWithoutGenerations
    /// Another run holds the lock; it was waited for `wait` seconds.
    case lockHeld(any ExplainedError, wait: Double)
    /// The lock could not be taken.
    case lockFailed(any ExplainedError)
    /// The manifest names an S3-compatible store whose settings cannot be used (a profile neither
    /// shared file has, half a key pair, an endpoint that is no URL); nothing was asked of it.
    case objectStore(any ExplainedError)
    /// A source to reuse files from is not a directory that can be opened.
    case reuseSource(String)
    /// The pull could not scan the destination, or read or write its state index (the error says which, and what to do).
    case cannotStart(any ExplainedError)
    /// The pull does not fit in the free space of the destination at `root`; nothing was downloaded.
    case notEnoughSpace(DiskShortfall, root: String)
    /// Removing extras was asked in a directory no pull completed in (it has no state index).
    case deleteInUnmanagedDirectory(root: String)
    /// Removing extras would remove `count` files, more than the `maximum` allowed; nothing was changed.
    case tooManyDeletions(count: Int, maximum: Int)
    /// The destination could not be scanned (a plan).
    case scan(any ExplainedError)
    /// What a verification proved could not be recorded.
    case record(any ExplainedError)
    /// A rollback was asked of a destination that is not in generations, as given.
    case notInGenerations(String)
    /// The generation before the current one cannot be gone back to.
    case rollback(any ExplainedError)
    /// The stop source was set before the run could finish: nothing further was done.
    case interrupted

    /// Which file of a remote manifest a fetch was for.
    package enum FetchedFile: Sendable {
        case manifest
        case signature
    }

    /// Why a file of trusted keys gave none.
    package enum KeyFileProblem: Sendable {
        /// It could not be read: why.
        case unreadable(String)
        /// It was not read: why in words (`is a directory, not a regular file`); `notARegularFile` when it is no file at all.
        case notRead(String, notARegularFile: Bool)
        /// It holds no key: the problem.
        case malformed(String)
    }
}
