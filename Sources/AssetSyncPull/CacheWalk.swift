public import AssetSyncCache
import AssetSyncModel
import AssetSyncSystem

/// The walk of a locked cache directory, on a thread of its own from the moment it is made, so that
/// it runs while the manifest and the state index are read: a pull with nothing to do then costs about
/// the longest of the three rather than their sum.
public final class CacheWalk {
    private let walk: BackgroundWork<Result<CacheListing, SystemError>>

    /// Starts walking `root`, which must be locked for the run.
    public convenience init(_ root: CacheRoot) { self.init(path: root.path) }

    /// Starts walking the directory at `path`: a locked cache directory, or one whose names and inodes
    /// the run's cache directory will have (a published generation, which no run changes).
    public init(path: String) {
        walk = BackgroundWork { Result { () throws(SystemError) in try CacheScanner.scan(root: path) } }
    }

    /// What the walk found, waiting for it.
    func listing() -> Result<CacheListing, SystemError> { walk.value() }
}
