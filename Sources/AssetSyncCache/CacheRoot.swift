package import AssetSyncModel
package import AssetSyncSystem
import Glibc

/// The cache directory opened once, at the start of a run, with assetsync's
/// own `.assetsync/partial/` beside the files. Every later path operation is
/// relative to these descriptors and never follows a symlink inside DEST.
package final class CacheRoot: Sendable {
    package let path: String
    // Declared innermost first: they are closed in this order.
    /// `DEST/.assetsync/partial/`
    let partialDirectory: DirectoryHandle
    /// `DEST/.assetsync/`
    let metadataDirectory: DirectoryHandle
    /// DEST itself.
    package let directory: DirectoryHandle
    /// Whether this run made DEST, and `.assetsync/`, so that a run that refuses to act can leave
    /// nothing behind. (Whether DEST is managed is another question, answered by a committed state index.)
    private let createdDirectory: Bool
    private let createdMetadata: Bool

    /// DEST's descriptor, borrowed from `directory`.
    package var fd: Int32 { directory.raw }

    /// Opens (creating when needed) the resolved cache directory and its `.assetsync/partial/`.
    package convenience init(resolvedPath: String) throws(CacheError) {
        try self.init(name: resolvedPath, in: .workingDirectory, path: resolvedPath, followingLink: true)
    }

    /// Opens (creating when needed) the directory `name` in `parent` as a cache directory, refusing a
    /// symlink there (`.linkRefused`) rather than following it: for the directories assetsync names
    /// itself (the generation store, its generations), where a link can only have been planted.
    package convenience init(named name: String, in parent: DirectoryHandle, path: String) throws(CacheError) {
        try self.init(name: name, in: parent, path: path, followingLink: false)
    }

    private init(name: String, in parent: DirectoryHandle, path resolvedPath: String, followingLink: Bool) throws(CacheError) {
        path = resolvedPath
        do {
            createdDirectory = try parent.makeDirectory(name, path: resolvedPath)
        } catch {
            throw .system(error)
        }
        let root: DirectoryHandle
        do {
            root = try parent.openDirectory(name, followingLink: followingLink, path: resolvedPath)
        } catch {
            if !followingLink, error.code == ELOOP || error.code == ENOTDIR, let status = try? parent.status(of: name) {
                throw .linkRefused(path: resolvedPath, by: LocalItem(status).kind)
            }
            throw .system(error)
        }
        createdMetadata = root.kind(of: CacheNames.metadata) == nil
        let metadata: DirectoryHandle
        do {
            metadata = try Self.openDirectory(in: root, CacheNames.metadata, displayPath: root.pathOf(CacheNames.metadata)).handle
        } catch .obstructed(let path, let kind) {
            throw .metadataObstructed(path: path, by: kind)
        }
        partialDirectory = try Self.openDirectory(in: metadata, CacheNames.partial, displayPath: metadata.pathOf(CacheNames.partial)).handle
        metadataDirectory = metadata
        directory = root
    }

    /// Removes the `.assetsync/` this run created (the lock file and the empty `partial/`), and DEST
    /// when this run made it, when a run refuses to act; what it found is left alone.
    package func forgetWhatThisRunCreated() {
        guard createdMetadata else { return }
        try? metadataDirectory.removeFile(CacheNames.lock)
        try? metadataDirectory.removeDirectory(CacheNames.partial)
        try? directory.removeDirectory(CacheNames.metadata)
        if createdDirectory { rmdir(path) }
    }

    /// Opens the directory that will hold `relativePath`. When `creating`, missing
    /// directories are made and a symlink in the way is replaced by a real
    /// directory (the link itself is removed, never its target); any other
    /// file in the way is an obstruction. `made` is called with the relative path of
    /// each directory made, which is durable only once its parent is fsynced.
    package func openParent(
        of relativePath: String, creating: Bool = true, made: (Substring) -> Void = { _ in }
    ) throws(CacheError) -> DirectoryHandle {
        try openDirectory(at: PathName.split(relativePath).parent ?? "", creating: creating, made: made)
    }

    /// Opens the directory at `relativePath` ("" for DEST) as `openParent` does: a handle of its own.
    package func openDirectory(
        at relativePath: Substring, creating: Bool = false, made: (Substring) -> Void = { _ in }
    ) throws(CacheError) -> DirectoryHandle {
        var current: DirectoryHandle
        do {
            current = try directory.duplicate()
        } catch {
            throw .system(error)
        }
        guard !relativePath.isEmpty else { return current }
        var walked = path
        for component in relativePath.split(separator: "/", omittingEmptySubsequences: false) {
            let name = String(component)
            walked += "/" + name
            if creating {
                let opened = try Self.openDirectory(in: current, name, displayPath: walked, replacingSymlink: true)
                current = opened.handle
                if opened.made { made(relativePath[..<component.endIndex]) }
            } else {
                do {
                    current = try current.openDirectory(name, path: walked)
                } catch {
                    throw .system(error)
                }
            }
        }
        return current
    }

    /// Opens `name` in `parent` as a directory without following a symlink, making it if missing;
    /// `made` says whether it did.
    private static func openDirectory(
        in parent: DirectoryHandle, _ name: String, displayPath: String, replacingSymlink: Bool = false
    ) throws(CacheError) -> (handle: DirectoryHandle, made: Bool) {
        var made = false
        for _ in 0..<4 {
            let failure: SystemError
            do {
                return (try parent.openDirectory(name, path: displayPath), made)
            } catch {
                failure = error
            }
            switch failure.code {
            case ENOENT:
                do {
                    if try parent.makeDirectory(name, path: displayPath) { made = true }
                } catch {
                    throw .system(error)
                }
            case ELOOP, ENOTDIR:
                guard let status = try? parent.status(of: name) else { continue }
                guard replacingSymlink, status.st_mode & S_IFMT == S_IFLNK else {
                    throw .obstructed(path: displayPath, by: LocalItem(status).kind)
                }
                do {
                    try parent.removeFile(name, allowingMissing: true, path: displayPath)
                } catch {
                    throw .system(error)
                }
            default:
                throw .system(failure)
            }
        }
        throw .system(SystemError("open", path: displayPath, code: ELOOP))
    }
}

/// A local failure while writing into the cache.
package enum CacheError: ExplainedError, Equatable, CustomStringConvertible {
    case system(SystemError)
    /// Something sits where the manifest needs a directory (a file of `kind`) or a file (a directory).
    case obstructed(path: String, by: LocalItem.Kind)
    /// Another process holds the partial's lock: it is writing that file now.
    case partialInUse(path: String)
    /// The partial on disk is not what this run wrote (truncated or replaced by another writer).
    case partialChanged(path: String, detail: String)
    /// `DEST/.assetsync` is not a directory (a symlink is never followed there).
    case metadataObstructed(path: String, by: LocalItem.Kind)
    /// A directory assetsync names itself beside or above DEST (the generation store, a generation)
    /// is a symlink or another non-directory: never followed.
    case linkRefused(path: String, by: LocalItem.Kind)
    /// Every generation number is taken up to the highest one the store counts to.
    case generationsExhausted(store: String, highest: String)

    package var description: String {
        switch self {
        case .system(let error): return error.description
        case .obstructed(let path, .directory):
            return "'\(path)' is a directory, where the manifest needs a file; move it away"
        case .obstructed(let path, let kind):
            return "'\(path)' is \(Self.describe(kind)), where the manifest needs a directory; move it away"
        case .metadataObstructed(let path, let kind):
            return "'\(path)' is \(Self.describe(kind)), where assetsync keeps its own directory (it follows no link there); "
                + "move it away and run again. To keep the cache on another volume, make DEST itself the link"
        case .linkRefused(let path, let kind):
            return "'\(path)' is \(Self.describe(kind)), where assetsync keeps a directory of its own (it follows no link there); "
                + "move it away and run again"
        case .generationsExhausted(let store, let highest):
            return "'\(store)/\(highest)' holds the highest generation number assetsync counts to, so the next generation "
                + "cannot be numbered; remove it (or rename it to a lower number) and run again"
        case .partialInUse(let path):
            return "'\(path)' is being written by another process (a second assetsync that ignored DEST's lock?); "
                + "it was left alone: run again when that process has finished"
        case .partialChanged(let path, let detail):
            return "'\(path)' changed on disk while this run wrote it (\(detail)); another process wrote to it, so it was not committed"
        }
    }

    private static func describe(_ kind: LocalItem.Kind) -> String {
        switch kind {
        case .regular: return "a file"
        case .directory: return "a directory"
        case .symlink: return "a symbolic link"
        case .other: return "a special file (FIFO, socket or device)"
        }
    }

    /// What else clears the error: deleting extras removes a directory in a file's way when it holds
    /// no files, and a file in a directory's way (never in the manifest) before any download.
    package var remedy: Remedy? {
        guard case .obstructed(_, let kind) = self else { return nil }
        return .deleteClearsObstruction(onlyWhenEmpty: kind == .directory)
    }

    package var kind: ErrorKind { .localIO }

    package var cause: (any Error)? {
        guard case .system(let error) = self else { return nil }
        return error
    }

    /// Errors after which no other file can succeed either: the run stops.
    package var stopsTheRun: Bool {
        guard case .system(let error) = self else { return false }
        return error.stopsTheRun
    }
}
