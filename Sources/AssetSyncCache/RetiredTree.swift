import AssetSyncSystem
import Glibc

/// A plain DEST's old tree being retired into the first generation published in its place. The
/// generation was made of hard links to the tree, so a file it still shares (the same inode) is
/// there already; a file the generation's state index records was put right by the pull; anything
/// else appeared or was replaced after the generation was built, and is moved into it (a rename:
/// same inode, same bytes), never lost.
struct RetiredTree {
    /// The paths the generation's state index records: files the manifest names.
    let managed: Set<String>
    let display: String
    let generationDisplay: String
    /// The paths that could not be carried over (the generation holds a directory where the tree has
    /// a file, or the reverse); they stay in the tree.
    private(set) var notCarried: [String] = []

    init(managed: Set<String>, display: String, generationDisplay: String) {
        self.managed = managed
        self.display = display
        self.generationDisplay = generationDisplay
    }

    /// Moves what `old` holds that `generation` lacks into it, and removes what `generation` has
    /// already; `old` is left holding only what could not be carried (empty directories go).
    mutating func carry(from old: DirectoryHandle, into generation: DirectoryHandle, relativePath: String) throws(SystemError) {
        for entry in try DirectoryTree.entries(of: old.raw, display: place(display, relativePath)) {
            let path = relativePath.isEmpty ? entry.name : relativePath + "/" + entry.name
            let status: stat
            do {
                status = try generation.status(of: entry.name, path: place(generationDisplay, path))
            } catch {
                guard error.code == ENOENT else { throw error }
                try old.rename(entry.name, to: entry.name, in: generation, path: place(display, path))
                continue
            }
            let generationHasDirectory = status.st_mode & S_IFMT == S_IFDIR
            if entry.isDirectory {
                guard generationHasDirectory else {
                    notCarried.append(path)
                    continue
                }
                try carryDirectory(entry.name, from: old, into: generation, relativePath: path)
            } else if generationHasDirectory {
                notCarried.append(path)
            } else if UInt64(status.st_ino) != entry.inode && !managed.contains(path) {
                // A file the manifest does not name, replaced after the build: the later one is DEST's.
                try old.rename(entry.name, to: entry.name, in: generation, path: place(display, path))
            } else {
                // The generation holds this very file, or the pull's proven version of it.
                try old.removeFile(entry.name, allowingMissing: true, path: place(display, path))
            }
        }
    }

    private mutating func carryDirectory(
        _ name: String, from old: DirectoryHandle, into generation: DirectoryHandle, relativePath: String
    ) throws(SystemError) {
        let from = try old.openDirectory(name, path: place(display, relativePath))
        let into = try generation.openDirectory(name, path: place(generationDisplay, relativePath))
        let before = notCarried.count
        try carry(from: from, into: into, relativePath: relativePath)
        if notCarried.count == before { try old.removeDirectory(name, allowingMissing: true, path: place(display, relativePath)) }
    }

    private func place(_ top: String, _ relativePath: String) -> String { relativePath.isEmpty ? top : top + "/" + relativePath }
}
