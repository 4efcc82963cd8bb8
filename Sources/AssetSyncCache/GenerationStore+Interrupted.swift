import AssetSyncModel
package import AssetSyncSystem
import Glibc

/// The steps of the store that leave a name behind when a run is killed in them, and how the next
/// run, holding the store's lock, finishes or undoes each: the temporary link, a plain DEST's old
/// tree, a tree half removed.
extension GenerationStore {
    /// Finishes what a run killed under the store's lock left: a `link.tmp` symlink is removed; a
    /// `link.tmp` directory or `retired/` (DEST's old plain tree, after its first generation was
    /// published) is retired into the current generation; `trash/` is emptied. Run before anything
    /// else once the lock is held; `notCarried` then names what the old tree still holds.
    package func finishInterruptedSteps() throws(SystemError) {
        try retireOldTree()
        try removeLink()
        try DirectoryTree.remove(CacheNames.trash, in: root.directory.raw, display: root.path)
    }

    /// Removes `link.tmp` when it is a symlink (made for a publish that did not happen); a directory
    /// there is DEST's old tree, which `retireOldTree` takes.
    func removeLink() throws(SystemError) {
        guard let kind = kind(of: CacheNames.link) else { return }
        if kind == S_IFDIR { return try retireOldTree() }
        try root.directory.removeFile(CacheNames.link, allowingMissing: true)
    }

    /// Retires DEST's old plain tree once a generation is published in its place (the exchange left
    /// it at `link.tmp`, renamed `retired/` here): whatever it holds that the current generation
    /// lacks is carried over, so that a file written into DEST while its first atomic pull ran is
    /// never lost, and the rest is removed. What cannot be carried (a directory of the generation
    /// has the name of a file of the tree, or the reverse) stays in `retired/`, named in `notCarried`.
    func retireOldTree() throws(SystemError) {
        notCarried = []
        if kind(of: CacheNames.link) == S_IFDIR {
            if kind(of: CacheNames.retired) != nil { try carryRetired() }
            try root.directory.rename(CacheNames.link, to: CacheNames.retired, in: root.directory)
            try root.directory.sync()
        }
        if kind(of: CacheNames.retired) != nil { try carryRetired() }
    }

    private func carryRetired() throws(SystemError) {
        guard let current = current() else { return }  // DEST is no generation (yet): the tree waits
        let old = try root.directory.openDirectory(CacheNames.retired)
        let generation = try root.directory.openDirectory(current)
        let managed = Set((StateIndex.saved(inCache: generation, display: generation.path) ?? StateIndex()).entries.map(\.path))
        var retired = RetiredTree(managed: managed, display: old.path, generationDisplay: generation.path)
        try DirectoryTree.remove(CacheNames.metadata, in: old.raw, display: old.path)
        try retired.carry(from: old, into: generation, relativePath: "")
        notCarried = retired.notCarried
        if notCarried.isEmpty { try root.directory.removeDirectory(CacheNames.retired, allowingMissing: true) }
    }

    /// Removes the tree `name` of the store (a pruned generation, a dropped build, the spare tree) by
    /// renaming it into `trash/` first: a removal cut short leaves no half tree under its own name.
    func discard(_ name: String) throws(SystemError) {
        guard kind(of: name) != nil else { return }
        let trash = DirectoryHandle(
            adopting: try DirectoryTree.openMaking([CacheNames.trash], in: root.directory.raw, display: root.path), path: root.directory.pathOf(CacheNames.trash))
        try DirectoryTree.remove(name, in: trash.raw, display: trash.path)
        try root.directory.rename(name, to: name, in: trash)
        try DirectoryTree.remove(CacheNames.trash, in: root.directory.raw, display: root.path)
    }

    /// The file type (`S_IFDIR`, `S_IFLNK`, ...) of `name` in the store, never following it; nil when absent.
    func kind(of name: String) -> mode_t? { root.directory.kind(of: name) }
}
