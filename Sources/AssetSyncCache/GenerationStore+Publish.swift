import AssetSyncModel
package import AssetSyncSystem
import Glibc

/// Publishing: the built generation made the one DEST shows by one rename (one exchange the first
/// time, when DEST's plain tree is retired), pruning beyond `--keep`, rolling back, going plain again.
extension GenerationStore {
    /// Publishes the built generation: the whole file system synced (its files, directories and links),
    /// `next/` renamed to the next `gen-NNNNNN` and the store synced, then a new symlink renamed over DEST
    /// and DEST's parent synced. A DEST that is still a plain directory trades places with the symlink
    /// in one step, and its old tree is retired into the generation (`retireOldTree`).
    /// Returns the generation's name.
    package func publish(_ build: CacheRoot) throws(CacheError) -> String {
        retirementFailure = nil
        // The number comes after every name that reads as one, a generation or not, so the rename never lands on one.
        let highest: Int
        do { highest = try root.directory.entries().compactMap { Self.number(of: $0.name) }.max() ?? 0 } catch {
            throw .system(error)
        }
        guard highest < Self.highestNumber else { throw .generationsExhausted(store: root.path, highest: Self.name(of: highest)) }
        do throws(SystemError) {
            try build.directory.descriptor.syncFileSystem()
            let name = Self.name(of: highest + 1)
            try root.directory.rename(CacheNames.build, to: name, in: root.directory, path: root.directory.pathOf(name))
            try root.directory.sync()
            try point(at: name)
            try discard(CacheNames.spare)
            return name
        } catch {
            throw .system(error)
        }
    }

    /// Points DEST at `previous` (see `previous()`, and `check` for what the caller makes sure of first);
    /// the generation being built, made from the current one, is dropped.
    package func rollBack(to previous: String) throws(SystemError) {
        try discard(CacheNames.build)
        try discard(CacheNames.spare)
        try point(at: previous)
    }

    /// The generation before the current one, which `rollBack` would publish; nil when there is none.
    package func previous() throws(SystemError) -> String? {
        guard let current = current(), let number = Self.number(of: current) else { return nil }
        return try generations().last { Self.number(of: $0)! < number }
    }

    /// Removes the generations beyond `keep` (the current one and the `keep - 1` before it stay), each
    /// only when no run holds its lock. Returns those removed.
    package func prune(keep: Int) throws(SystemError) -> [String] {
        var removed: [String] = []
        for name in try prunable(keep: keep) {
            guard let lock = try? CacheLock(root: CacheRoot(named: name, in: root.directory, path: root.directory.pathOf(name)), wait: 0) else { continue }
            try withExtendedLifetime(lock) { () throws(SystemError) in try discard(name) }
            removed.append(name)
        }
        return removed
    }

    /// The generations beyond `keep`, oldest first: all but the current one and the `keep - 1` before it.
    func prunable(keep: Int) throws(SystemError) -> [String] {
        Self.prunable(among: try generations(), current: current(), keep: keep)
    }

    static func prunable(among all: [String], current: String?, keep: Int) -> [String] {
        guard let current, let number = number(of: current) else { return [] }
        return all.filter { Self.number(of: $0)! < number }.dropLast(max(0, keep - 1)) + all.filter { Self.number(of: $0)! > number }
    }

    /// Makes DEST a plain directory again, holding every file of the current generation: the switch is
    /// recorded (`leaving`, so that a run after a kill finishes it), the generation and the symlink trade
    /// places in one step, then the store is emptied and the record removed.
    package func makePlain() throws(SystemError) {
        let mode = Self.mode(in: root.metadataDirectory) ?? Mode(keep: Self.defaultKeep)
        if !mode.leaving { try remember(Mode(keep: mode.keep, clonesFiles: mode.clonesFiles, leaving: true)) }
        if let current = current() {
            try DirectoryTree.exchange(current, in: root.directory.raw, with: destName, in: parent.raw, display: destPath)
            try parent.sync(path: destPath)
        }
        // What DEST's old plain tree kept back (`notCarried`) stays for the user.
        for entry in try root.directory.entries() where ![CacheNames.metadata, CacheNames.retired].contains(entry.name) {
            try DirectoryTree.remove(entry.name, in: root.directory.raw, display: root.path)
        }
        try? root.metadataDirectory.removeFile(CacheNames.modeRecord)
        try root.metadataDirectory.sync(path: root.path)
    }

    /// Replaces DEST by a symlink to `generation` in one rename (one exchange when DEST is a directory),
    /// then syncs DEST's parent.
    func point(at generation: String) throws(SystemError) {
        try removeLink()
        try root.directory.makeSymlink(CacheNames.link, to: destName + CacheNames.storeSuffix + "/" + generation)
        if destIsPlain {
            try DirectoryTree.exchange(CacheNames.link, in: root.directory.raw, with: destName, in: parent.raw, display: destPath)
            try parent.sync(path: destPath)
            // Published: a failure from here on is told, and the next run retires the tree again.
            do { try retireOldTree() } catch { retirementFailure = error }
            return
        }
        try root.directory.rename(CacheNames.link, to: destName, in: parent, path: destPath)
        try parent.sync(path: destPath)
    }
}
