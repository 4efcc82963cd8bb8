import AssetSyncModel
import AssetSyncSystem

/// `DEST.assetsync/spare/`: the files a recycled generation gives up while it becomes the next one,
/// renamed (not copied) to their own paths under it, so that they keep their inodes and mtimes and
/// the recycled generation's state index, linked in beside them, still vouches for them.
final class SpareTree {
    let directory: DirectoryHandle

    /// Opens the spare tree, creating it when needed; an interrupted run's is continued.
    init(in store: DirectoryHandle, display: String) throws(SystemError) {
        try store.makeDirectory(CacheNames.spare, path: display)
        directory = try store.openDirectory(CacheNames.spare, path: display)
    }

    /// Moves `name` in `source` to `relativePath` here, making its parent directories; what
    /// cannot be moved (the place is taken) is removed instead, as mirroring without a spare would.
    func keep(_ name: String, in source: Int32, relativePath: String) throws(SystemError) {
        let components = relativePath.split(separator: "/").map(String.init)
        let parent = DirectoryHandle(
            adopting: try DirectoryTree.openMaking(components.dropLast(), in: directory.raw, display: directory.path),
            path: ([directory.path] + components.dropLast()).joined(separator: "/"))
        do {
            try parent.moveHere(name, from: source, as: components.last ?? name, path: directory.pathOf(relativePath))
        } catch {
            try DirectoryTree.remove(name, in: source, display: directory.pathOf(relativePath))
        }
    }
}
