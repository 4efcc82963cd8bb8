import AssetSyncModel
package import AssetSyncSystem
import Glibc

/// `pull --delete`: removes files under DEST that the manifest does not list,
/// then the directories that removal left empty. Nothing is followed: a
/// symlink is removed as a link, and `.assetsync/` is never touched.
/// What stands where the manifest needs a path is cleared first, before any
/// download, so that the same run can commit there.
package enum ExtraRemoval {
    /// The default of `--max-delete`: more removals than this are refused unless asked for.
    package static let defaultMaximum = 1000

    package struct Outcome: Sendable {
        package var removed: [String] = []
        package var failures: [(path: String, error: SystemError)] = []

        package init() {}
    }

    /// Removes `paths` (relative to the root, never under `.assetsync/`).
    package static func remove(_ paths: [String], in root: CacheRoot) -> Outcome {
        var outcome = Outcome()
        var emptied = Set<String>()
        for path in paths where !path.hasPrefix(CacheNames.metadata + "/") && path != CacheNames.metadata {
            let (parentPart, namePart) = PathName.split(path)
            let parentPath = String(parentPart ?? "")
            let name = String(namePart)
            do throws(CacheError) {
                let parent = try root.openParent(of: path, creating: false)
                defer { close(parent) }
                guard unlinkat(parent, name, 0) == 0 || errno == ENOENT else {
                    throw .system(SystemError("unlink", path: root.path + "/" + path))
                }
                outcome.removed.append(path)
                if !parentPath.isEmpty { emptied.insert(parentPath) }
            } catch {
                switch error {
                case .system(let failure): outcome.failures.append((path, failure))
                case .obstructed, .metadataObstructed, .linkRefused, .generationsExhausted, .partialInUse, .partialChanged: outcome.failures.append((path, SystemError("unlink", path: root.path + "/" + path, code: ENOTDIR)))
                }
            }
        }
        removeEmptyDirectories(emptied, in: root)
        return outcome
    }

    /// Before any download: removes the extras that sit where the manifest needs a directory, and
    /// each tree holding only directories where it needs a file (one that holds a file is left,
    /// and its commit fails asking to move it away). Returns what it removed and the extras left.
    package static func clearObstructions(
        extras: [String], directoriesAtFiles: [String], manifestPaths: [String], in root: CacheRoot
    ) -> (outcome: Outcome, remaining: [String]) {
        var needed = Set<Substring>()
        if !extras.isEmpty {
            for path in manifestPaths {
                var slash = path.utf8.firstIndex(of: UInt8(ascii: "/"))
                while let end = slash {
                    needed.insert(path[..<end])
                    slash = path.utf8[path.utf8.index(after: end)...].firstIndex(of: UInt8(ascii: "/"))
                }
            }
        }
        let obstructing = extras.filter { needed.contains(Substring($0)) }
        let outcome = remove(obstructing, in: root)
        for path in directoriesAtFiles {
            let name = String(PathName.split(path).name)
            guard let parent = try? root.openParent(of: path, creating: false) else { continue }
            if holdsOnlyDirectories(name, in: parent) { removeDirectoryTree(name, in: parent) }
            close(parent)
        }
        let removed = Set(obstructing)
        return (outcome, extras.filter { !removed.contains($0) })
    }

    /// Whether the directory `name` in `parent` (a link is not followed) holds nothing but directories.
    private static func holdsOnlyDirectories(_ name: String, in parent: Int32) -> Bool {
        let fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        return entries(of: fd).allSatisfy { child in
            var status = stat()
            return fstatat(fd, child, &status, AT_SYMLINK_NOFOLLOW) == 0 && status.st_mode & S_IFMT == S_IFDIR
                && holdsOnlyDirectories(child, in: fd)
        }
    }

    /// Removes the directory `name` in `parent` and the directories under it, deepest first;
    /// `AT_REMOVEDIR` removes only empty ones, so a file that appeared meanwhile stays.
    private static func removeDirectoryTree(_ name: String, in parent: Int32) {
        let fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { return }
        defer { close(fd) }
        for child in entries(of: fd) { removeDirectoryTree(child, in: fd) }
        unlinkat(parent, name, AT_REMOVEDIR)
    }

    /// The names in the directory `fd` (without "." and "..").
    private static func entries(of fd: Int32) -> [String] {
        let listing = dup(fd)
        guard listing >= 0 else { return [] }
        guard let stream = fdopendir(listing) else {
            close(listing)
            return []
        }
        defer { closedir(stream) }
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(cString: $0.baseAddress!.assumingMemoryBound(to: CChar.self)) }
            if name != ".", name != ".." { names.append(name) }
        }
        return names
    }

    /// Removes each directory (deepest first) and then its parents while they are empty.
    private static func removeEmptyDirectories(_ directories: Set<String>, in root: CacheRoot) {
        var pending = directories
        while let deepest = pending.max(by: { $0.utf8.count < $1.utf8.count }) {
            pending.remove(deepest)
            let (parentPath, name) = PathName.split(deepest)
            guard let parent = try? root.openParent(of: deepest, creating: false) else { continue }
            let removed = unlinkat(parent, String(name), AT_REMOVEDIR) == 0
            close(parent)
            if removed, let parentPath { pending.insert(String(parentPath)) }
        }
    }
}
