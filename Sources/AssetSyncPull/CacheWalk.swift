package import AssetSyncCache
import AssetSyncModel
import AssetSyncSystem
import Glibc

/// The walk of a locked cache directory, on a thread of its own from the moment it is made, so that
/// it runs while the manifest and the state index are read: a pull with nothing to do then costs about
/// the longest of the three rather than their sum. The directory is opened when the walk is made, and
/// the walk holds it: a rename meanwhile changes nothing, and one that cannot be opened is a failure,
/// never an empty listing.
package final class CacheWalk {
    private let walk: BackgroundWork<Result<CacheListing, SystemError>>

    /// Starts walking `root`, which must be locked for the run.
    package convenience init(_ root: CacheRoot) {
        self.init(opened: openat(root.fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC), display: root.path)
    }

    /// Starts walking the directory at `path` (never through a link at its last name): one whose names
    /// and inodes the run's cache directory will have (a published generation, which no run changes).
    package convenience init(path: String) {
        self.init(opened: open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC), display: path)
    }

    /// Starts a walk that is `first`'s listing when that one succeeded, and a walk of `root` otherwise.
    package init(_ first: CacheWalk, otherwise root: CacheRoot) {
        walk = BackgroundWork {
            switch first.listing() {
            case .success(let listing): .success(listing)
            case .failure: CacheWalk(root).listing()
            }
        }
    }

    private init(opened fd: Int32, display: String) {
        let failure = fd < 0 ? SystemError("open", path: display) : nil
        walk = BackgroundWork {
            if let failure { return .failure(failure) }
            return Result { () throws(SystemError) in try CacheScanner.scan(directory: fd, display: display) }
        }
    }

    /// What the walk found, waiting for it; asked for once, by the plan, after which the walk no
    /// longer holds it (a million entries' listing is about 130 MB).
    func listing() -> Result<CacheListing, SystemError> { walk.take() }
}
