package import AssetSyncModel
import AssetSyncSystem
import Glibc

/// `pull --delete`: removes files under DEST that the manifest does not list,
/// then the directories that removal left empty. Nothing is followed: a
/// symlink is removed as a link, and `.assetsync/` is never touched.
/// What stands where the manifest needs a path is cleared first, before any
/// download, so that the same run can commit there.
package enum ExtraRemoval {
    /// Removes `paths` (relative to the root, never under `.assetsync/`).
    package static func remove(_ paths: [String], in root: CacheRoot) -> PullOutcome.Deletion {
        var outcome = PullOutcome.Deletion()
        var emptied = Set<String>()
        for path in paths where !path.hasPrefix(CacheNames.metadata + "/") && path != CacheNames.metadata {
            let (parentPart, namePart) = PathName.split(path)
            let parentPath = String(parentPart ?? "")
            let name = String(namePart)
            do throws(CacheError) {
                let parent = try root.openParent(of: path, creating: false)
                do {
                    try parent.removeFile(name, allowingMissing: true, path: root.path + "/" + path)
                } catch {
                    throw .system(error)
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
    ) -> (outcome: PullOutcome.Deletion, remaining: [String]) {
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
        }
        let removed = Set(obstructing)
        return (outcome, extras.filter { !removed.contains($0) })
    }

    /// Whether the directory `name` in `parent` (a link is not followed) holds nothing but directories.
    private static func holdsOnlyDirectories(_ name: String, in parent: DirectoryHandle) -> Bool {
        guard let directory = try? parent.openDirectory(name) else { return false }
        return names(in: directory).allSatisfy { child in
            directory.kind(of: child) == S_IFDIR && holdsOnlyDirectories(child, in: directory)
        }
    }

    /// Removes the directory `name` in `parent` and the directories under it, deepest first;
    /// `AT_REMOVEDIR` removes only empty ones, so a file that appeared meanwhile stays.
    private static func removeDirectoryTree(_ name: String, in parent: DirectoryHandle) {
        guard let directory = try? parent.openDirectory(name) else { return }
        for child in names(in: directory) { removeDirectoryTree(child, in: directory) }
        try? parent.removeDirectory(name)
    }

    /// The names in `directory`; none when it cannot be read.
    private static func names(in directory: DirectoryHandle) -> [String] { ((try? directory.entries()) ?? []).map(\.name) }

    /// Removes each directory (deepest first) and then its parents while they are empty.
    private static func removeEmptyDirectories(_ directories: Set<String>, in root: CacheRoot) {
        var pending = directories
        while let deepest = pending.max(by: { $0.utf8.count < $1.utf8.count }) {
            pending.remove(deepest)
            let (parentPath, name) = PathName.split(deepest)
            guard let parent = try? root.openParent(of: deepest, creating: false) else { continue }
            let removed = (try? parent.removeDirectory(String(name))) != nil
            if removed, let parentPath { pending.insert(String(parentPath)) }
        }
    }
}
