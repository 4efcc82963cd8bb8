import AssetSyncModel
import AssetSyncSystem
import Glibc

/// A directory whose files may already hold bytes a pull needs, with the state index that says
/// which (size, CRC-32) each file had when it was proven: DEST itself (a renamed or moved entry),
/// another generation, or another assetsync cache (`--reuse-from`). The index only points at
/// candidates; every reuse is proven again (see `LocalCopy`).
package final class ReuseSource: Sendable {
    /// The directory's path, for messages and events.
    package let path: String
    /// The directory, opened once; files in it are opened without following any link.
    let directory: DirectoryHandle
    /// Reads the index: only when some entry is to be fetched, so that a run with nothing to fetch
    /// never reads another directory's index.
    private let loadIndex: @Sendable () -> StateIndex
    package var index: StateIndex { loadIndex() }
    /// Whether a record of this index vouches for a file whose size, mtime and inode it still
    /// matches, as the state index of DEST does on every no-op run: only then may a clone of that
    /// file be committed without reading it.
    let recordsVouch: Bool
    /// Whether this is the cache being pulled into, whose entries' own paths are not sources of themselves.
    let isDestination: Bool

    /// The cache directory being pulled into, with the index its last run committed; its records
    /// vouch for unchanged files unless the run ignores them (`--verify`).
    package init(destination root: CacheRoot, index: StateIndex, recordsVouch: Bool) {
        path = root.path
        directory = root.directory
        loadIndex = { index }
        self.recordsVouch = recordsVouch
        isDestination = true
    }

    /// The cache directory a plan reads (`plan`, `pull --dry-run`), opened without creating anything,
    /// with the index the plan loaded; nil when `path` cannot be opened as a directory.
    package init?(plannedDestinationAt path: String, index: StateIndex) {
        guard let directory = try? DirectoryHandle(opening: path) else { return nil }
        self.path = path
        self.directory = directory
        loadIndex = { index }
        recordsVouch = true
        isDestination = true
    }

    /// Another assetsync cache (`--reuse-from DIR`), read through its `.assetsync/state` without
    /// locking or writing it: its records are only leads, never proof. Nil when `path` is not a
    /// directory that can be opened.
    package convenience init?(otherCacheAt path: String) {
        self.init(cacheAt: path, recordsVouch: false)
    }

    /// Any assetsync cache directory, read through its own `.assetsync/state` when a pull first needs
    /// it (such as another generation of DEST, whose records vouch for its unchanged files as DEST's
    /// do); nil when `path` cannot be opened as a directory.
    package init?(cacheAt path: String, recordsVouch: Bool) {
        guard let directory = try? DirectoryHandle(opening: path) else { return nil }
        self.path = path
        self.directory = directory
        loadIndex = { StateIndex.load(cacheAt: path) }
        self.recordsVouch = recordsVouch
        isDestination = false
    }

    /// The path of `relativePath` in this source, for messages and events: DEST's own files by their
    /// entry path, another directory's with that directory in front.
    package func displayPath(of relativePath: String) -> String { isDestination ? relativePath : path + "/" + relativePath }

    /// Opens the regular file at `relativePath` beneath this directory for reading, or returns nil: the
    /// path must keep the manifest's path rules (no `..`, `.` or empty component, nothing absolute, so
    /// that each step goes down), no component may be a symlink (each directory is opened with
    /// `O_NOFOLLOW`, and so is the file), and anything but a regular file (a FIFO, a device) is refused
    /// without blocking.
    func openFile(_ relativePath: String) -> Int32? {
        var path = relativePath
        guard path.withUTF8({ ManifestRules.isValidPath($0) }) else { return nil }
        guard var directory = try? self.directory.duplicate() else { return nil }
        let components = relativePath.split(separator: "/", omittingEmptySubsequences: false)
        for component in components.dropLast() {
            guard let next = try? directory.openDirectory(String(component)) else { return nil }
            directory = next
        }
        guard let file = try? directory.openFile(String(components.last ?? ""), flags: O_RDONLY | O_NONBLOCK) else { return nil }
        guard let status = try? FileDescriptor(file).status(), status.st_mode & S_IFMT == S_IFREG else {
            close(file)
            return nil
        }
        return file
    }
}
