package import AssetSyncModel
import AssetSyncSystem
import Glibc

/// Housekeeping of `DEST/.assetsync/partial/` at the start of a pull.
package enum PartialDirectory {
    /// Removes every partial that cannot continue: one whose name matches no manifest entry,
    /// one whose resume record is missing, torn, or describes another version of its entry,
    /// and temporary leftovers, whatever their kind (a directory goes with everything in it).
    /// A partial that another process holds locked is being written: its files are left alone.
    /// Returns the bytes kept per entry path, for the disk preflight.
    package static func sweep(_ root: CacheRoot, entries: @autoclosure () -> [String: ManifestEntry]) -> [String: Int64] {
        let files = names(in: root.partialDirectory)
        if files.isEmpty { return [:] }  // the usual case, and a no-op run's: nothing to match
        let entries = entries()
        let names = PartialFile.uniqueNames(Array(entries.keys))
        var entryByName: [String: ManifestEntry] = [:]
        for (path, name) in names { entryByName[name] = entries[path] }
        var kept: [String: Int64] = [:]
        var verdicts: [String: Int64?] = [:]
        var inUse: [String: Bool] = [:]
        for file in files {
            let (base, suffix) = split(file)
            if verdicts[base] == nil { verdicts[base] = keepableBytes(root, base, entryByName[base]) }
            if suffix == ".part" || suffix == ".resume", let bytes = verdicts[base]!, let entry = entryByName[base] {
                kept[entry.path] = bytes
            } else {
                if inUse[base] == nil { inUse[base] = isLocked(root, base + ".part") }
                if !inUse[base]! { remove(file, in: root.partialDirectory, depth: 0) }
            }
        }
        return kept
    }

    /// Whether another process holds the lock of the partial `partName` (see `PartialFile`).
    private static func isLocked(_ root: CacheRoot, _ partName: String) -> Bool {
        guard let fd = try? root.partialDirectory.openFile(partName, flags: O_RDONLY | O_NONBLOCK) else { return false }
        defer { close(fd) }
        let file = FileDescriptor(fd)
        guard let status = try? file.status(), status.st_mode & S_IFMT == S_IFREG else { return false }
        return (try? file.tryLock()) == false
    }

    /// How deep a directory tree in `partial/` is removed; anything deeper stays, and its file fails.
    private static let maximumDepth = 64

    /// Removes `name` from `directory`: a directory with everything in it, never following a symlink
    /// (a link is removed itself).
    private static func remove(_ name: String, in directory: DirectoryHandle, depth: Int) {
        do {
            try directory.removeFile(name)
            return
        } catch {
            guard error.code == EISDIR, depth < maximumDepth else { return }
        }
        guard let inner = try? directory.openDirectory(name) else { return }
        for child in names(in: inner) { remove(child, in: inner, depth: depth + 1) }
        try? directory.removeDirectory(name)
    }

    /// The bytes of the partial named `base` if it can continue `entry`: its record matches, its part fits.
    private static func keepableBytes(_ root: CacheRoot, _ base: String, _ entry: ManifestEntry?) -> Int64? {
        guard let entry, PartialFile.resumeFields(root: root, name: base, entry: entry) != nil else { return nil }
        guard let status = try? root.partialDirectory.status(of: base + ".part"), status.st_mode & S_IFMT == S_IFREG, Int64(status.st_size) <= entry.size
        else { return nil }
        return Int64(status.st_size)
    }

    /// "0123abcd.part" → ("0123abcd", ".part"); the suffix is everything from the first dot.
    private static func split(_ file: String) -> (base: String, suffix: String) {
        guard let dot = file.firstIndex(of: ".") else { return (file, "") }
        return (String(file[..<dot]), String(file[dot...]))
    }

    /// The names in `directory`; none when it cannot be read.
    private static func names(in directory: DirectoryHandle) -> [String] { ((try? directory.entries()) ?? []).map(\.name) }
}
