public import AssetSyncCache
import AssetSyncModel
import AssetSyncSystem

/// The walk of a locked cache directory, on a thread of its own from the moment it is made, so that
/// it runs while the manifest and the state index are read: a pull with nothing to do then costs about
/// the longest of the three rather than their sum.
public final class CacheWalk {
    private var thread: JoinableThread<Result<CacheListing, SystemError>>?
    private var result: Result<CacheListing, SystemError>?

    /// Starts walking `root`, which must be locked for the run (or walks it here when no thread can be had).
    public init(_ root: CacheRoot) {
        let path = root.path
        let walk = { () -> Result<CacheListing, SystemError> in Result { () throws(SystemError) in try CacheScanner.scan(root: path) } }
        thread = JoinableThread(walk)
        if thread == nil { result = walk() }
    }

    /// Ends a walk nobody asked for (the run stopped before its plan).
    deinit { _ = thread?.join() }

    /// What the walk found, waiting for it.
    func listing() -> Result<CacheListing, SystemError> {
        if let thread {
            result = thread.join()
            self.thread = nil
        }
        return result!
    }
}
