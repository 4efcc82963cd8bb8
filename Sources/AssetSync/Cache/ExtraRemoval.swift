import Glibc

/// `pull --delete`: removes files under DEST that the manifest does not list,
/// then the directories that removal left empty. Nothing is followed: a
/// symlink is removed as a link, and `.assetsync/` is never touched.
public enum ExtraRemoval {
    /// The default of `--max-delete`: more removals than this are refused unless asked for.
    public static let defaultMaximum = 1000

    public struct Outcome: Sendable {
        public var removed: [String] = []
        public var failures: [(path: String, error: SystemError)] = []
    }

    /// Removes `paths` (relative to the root, never under `.assetsync/`).
    public static func remove(_ paths: [String], in root: CacheRoot) -> Outcome {
        var outcome = Outcome()
        var emptied = Set<String>()
        for path in paths where !path.hasPrefix(CacheRoot.metadataName + "/") && path != CacheRoot.metadataName {
            let parentPath = path.utf8.lastIndex(of: UInt8(ascii: "/")).map { String(path[..<$0]) } ?? ""
            let name = String(path.utf8.lastIndex(of: UInt8(ascii: "/")).map { path[path.utf8.index(after: $0)...] } ?? path[...])
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
                case .obstructed, .partialInUse, .partialChanged: outcome.failures.append((path, SystemError("unlink", path: root.path + "/" + path, code: ENOTDIR)))
                }
            }
        }
        removeEmptyDirectories(emptied, in: root)
        return outcome
    }

    /// Removes each directory (deepest first) and then its parents while they are empty.
    private static func removeEmptyDirectories(_ directories: Set<String>, in root: CacheRoot) {
        var pending = directories
        while let deepest = pending.max(by: { $0.utf8.count < $1.utf8.count }) {
            pending.remove(deepest)
            let name = String(deepest.utf8.lastIndex(of: UInt8(ascii: "/")).map { deepest[deepest.utf8.index(after: $0)...] } ?? deepest[...])
            guard let parent = try? root.openParent(of: deepest, creating: false) else { continue }
            let removed = unlinkat(parent, name, AT_REMOVEDIR) == 0
            close(parent)
            if removed, let slash = deepest.utf8.lastIndex(of: UInt8(ascii: "/")) { pending.insert(String(deepest[..<slash])) }
        }
    }
}
