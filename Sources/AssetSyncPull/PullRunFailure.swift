package import AssetSyncCache
package import AssetSyncModel
package import AssetSyncSystem
package import AssetSyncTransfer

/// Why a request run by `PullRun` could not go on, before or around its files' work: each caller
/// words it (the library without flag names, the command line with them). Which one a run reports
/// when several apply is decided by `PullRun`, once: a local manifest's own failure before any of the
/// destination's.
package enum PullRunFailure: Error {
    /// A file of trusted keys gave none.
    case keyFile(String, KeyFileFailure)
    /// Trusted keys were given for a manifest with no signature beside it (standard input, bytes): its name.
    case unsignable(String)
    /// The manifest could not be read, or is not a valid one.
    case manifest(ManifestError)
    /// With trusted keys: the manifest or its signature could not be read, the manifest is refused,
    /// or its version could not be checked or recorded.
    case admission(AdmissionFailure)
    /// The manifest at the URL (or its signature) could not be fetched.
    case fetch(url: String, FetchedFile, ManifestFetcher.Failure)
    /// The destination, as given, cannot be resolved to a directory to use.
    case destination(String, CacheDirectory.Problem)
    /// The destination (or the generation built in it) could not be opened or made.
    case destinationUnopenable(CacheError)
    /// The destination's generation store cannot be placed beside it, as given.
    case storeUnplaceable(String, CacheDirectory.Problem)
    /// The destination's generation store could not be opened.
    case storeUnopenable(String, CacheError)
    /// A step of the generations failed: beginning, building or publishing.
    case generations(GenerationFailure)
    /// A number of generations to keep was asked for a destination that is not, and is not to become, in generations.
    case keepWithoutGenerations
    /// Another run holds the lock (waited for `wait` seconds), or it could not be taken.
    case lock(LockError, wait: Double)
    /// A source to reuse files from is not a directory that can be opened.
    case reuseSource(String)
    /// The pull could not start in the destination at `root`.
    case start(PullSession.StartError, root: String)
    /// The destination could not be scanned (a plan).
    case scan(SystemError)
    /// What a verification proved could not be recorded.
    case record(SystemError)
    /// A rollback was asked of a destination that is not in generations, as given.
    case notInGenerations(String)
    /// The generation before the current one cannot be gone back to.
    case rollback(RollbackFailure)
    /// The stop source was set before the run could finish: nothing further was done.
    case interrupted

    /// Which file of a remote manifest a fetch was for.
    package enum FetchedFile: Sendable {
        case manifest
        case signature
    }
}
