import AssetSyncModel
import AssetSyncSystem
import Glibc

/// `DEST.assetsync/spare/`: the files a recycled generation gives up while it becomes the next one,
/// renamed (not copied) to their own paths under it, so that they keep their inodes and mtimes and
/// the recycled generation's state index, linked in beside them, still vouches for them.
final class SpareTree {
    let fd: Int32
    let display: String

    /// Opens the spare tree, creating it when needed; an interrupted run's is continued.
    init(in store: Int32, display: String) throws(SystemError) {
        if mkdirat(store, CacheNames.spare, 0o755) != 0, errno != EEXIST { throw SystemError("mkdir", path: display) }
        fd = openat(store, CacheNames.spare, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { throw SystemError("open", path: display) }
        self.display = display
    }

    deinit { close(fd) }

    /// Moves `name` in `directory` to `relativePath` here, making its parent directories; what
    /// cannot be moved (the place is taken) is removed instead, as mirroring without a spare would.
    func keep(_ name: String, in directory: Int32, relativePath: String) throws(SystemError) {
        let components = relativePath.split(separator: "/").map(String.init)
        let parent = try DirectoryTree.openMaking(components.dropLast(), in: fd, display: display)
        defer { close(parent) }
        if renameat(directory, name, parent, components.last ?? name) != 0 {
            try DirectoryTree.remove(name, in: directory, display: display + "/" + relativePath)
        }
    }
}
