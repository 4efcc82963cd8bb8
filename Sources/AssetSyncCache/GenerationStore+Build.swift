import AssetSyncModel
package import AssetSyncSystem
import Glibc

/// Building the next generation, `next/`: from the current one (hard links or clones), by recycling
/// one beyond `--keep`, or resumed as an interrupted run left it.
extension GenerationStore {
    /// Prepares `next/`, the generation this pull builds: the same tree as the current generation (or
    /// plain DEST, the first time), with its state index, so that unchanged files stay current without
    /// being read. Each file is a clone of the current one's where the file system shares blocks (XFS,
    /// Btrfs: see `clonesFiles`), else a hard link to it; a plain DEST's are always linked, since its
    /// tree goes once the generation is published. A `next/` an interrupted pull left is resumed as it
    /// is, its partials and what it committed included. Otherwise the generation that publishing would
    /// prune (beyond `keep`) is recycled when no run holds it: renamed to `recycle/` and made the
    /// current tree by replacing only the files that differ (another inode; with clones, other bytes by
    /// the records of both), which costs two directory reads per directory where making a new tree
    /// costs a `linkat` or a clone per file (and pruning the old one an `unlinkat` per file). Returns
    /// the path of `next/`, for a `CacheRoot`.
    package func prepareBuild(keep: Int) throws(SystemError) -> String {
        let store = root.directory
        let display = store.pathOf(CacheNames.build)
        let resuming = store.kind(of: CacheNames.build) != nil
        buildHasInodesOf = nil
        buildIndex = nil
        let recycled = !resuming && store.kind(of: CacheNames.recycle) == nil ? try recycle(keep: keep) : nil
        let recycling = !resuming && store.kind(of: CacheNames.recycle) != nil
        let name = recycling ? CacheNames.recycle : CacheNames.build
        if !recycling { try store.makeDirectory(CacheNames.build, path: display) }
        let current = current()
        clonesFiles = current != nil && DirectoryTree.canClone(in: root.partialDirectory.raw, display: root.partialDirectory.path)
        if let mode = Self.mode(in: root.metadataDirectory), mode.clonesFiles != clonesFiles {
            try remember(Mode(keep: mode.keep, clonesFiles: clonesFiles))
        }
        let source: DirectoryHandle
        do {
            source = try parent.openDirectory(destName, followingLink: true, path: destPath)  // DEST, through its link
        } catch {
            if error.code == ENOENT { return display }  // the first pull of a new DEST starts empty
            throw error
        }
        let build = try store.openDirectory(name)
        var previous: StateIndex?
        var records: CloneRecords?
        if clonesFiles {
            // Both indexes are read at once: each is a parse of up to one line per file.
            let loading = BackgroundWork { [build] in StateIndex.saved(inCache: build, display: build.path) }
            let current = StateIndex.saved(inCache: source, display: destPath) ?? StateIndex()
            previous = loading.value()
            records = CloneRecords(current: current, previous: previous ?? StateIndex(), resumed: resuming)
        }
        let sharing: DirectoryTree.FileSharing = records.map { records in .clone { records.cloned($0, source: $1, clone: $2) } } ?? .hardLink
        let changes: Int
        if recycling {
            let spare = try SpareTree(in: root.directory, display: root.directory.pathOf(CacheNames.spare))
            try linkState(from: build, to: spare.directory, names: [CacheNames.state, AcceptedVersion.fileName], replacing: false, display: spare.directory.path)
            changes = try DirectoryTree.link(
                from: source.raw, to: build.raw, skipping: [CacheNames.metadata], sharing: sharing, mirroring: true,
                keeps: records.map { records in { path, present, wanted in
                    // Not the current file itself (left by an earlier build of hard links): a clone replaces it.
                    present.inode != wanted.inode && records.holdsCurrentBytes(path, present: present.inode, wanted: wanted.inode)
                } }, discard: spare.keep, display: display)
        } else {
            changes = try DirectoryTree.link(from: source.raw, to: build.raw, skipping: [CacheNames.metadata], sharing: sharing, display: display)
        }
        if let records {
            try linkState(from: source, to: build, names: [AcceptedVersion.fileName], replacing: recycling, display: display)
            let index = records.index
            if index != previous { try save(index, in: build, display: display) }
            buildIndex = index
        } else {
            try linkState(from: source, to: build, names: [CacheNames.state, AcceptedVersion.fileName], replacing: recycling, display: display)
        }
        if current == nil { try carryPartials(from: source, into: build, display: display) }
        if recycling { try root.directory.rename(CacheNames.recycle, to: CacheNames.build, in: root.directory, path: display) }
        if !resuming { buildHasInodesOf = clonesFiles ? (changes == 0 ? recycled : nil) : current }
        return display
    }

    /// Moves the partial downloads of a plain DEST into the first generation's `.assetsync/partial/`,
    /// so that its pull resumes them rather than downloading again; a name `next/` already has (from
    /// an interrupted first pull) stays as it is. The caller holds DEST's own lock (`destIsPlain`), so
    /// no run writes them meanwhile.
    func carryPartials(from dest: DirectoryHandle, into build: DirectoryHandle, display: String) throws(SystemError) {
        guard let metadata = try? dest.openDirectory(CacheNames.metadata), let partials = try? metadata.openDirectory(CacheNames.partial) else { return }
        let names = try partials.entries().map(\.name)
        guard !names.isEmpty else { return }
        let into = DirectoryHandle(
            adopting: try DirectoryTree.openMaking([CacheNames.metadata, CacheNames.partial], in: build.raw, display: display),
            path: display + "/" + CacheNames.metadata + "/" + CacheNames.partial)
        for name in names where into.kind(of: name) == nil {
            try partials.rename(name, to: name, in: into)
        }
    }

    /// Replaces the state index of the cache directory `build` by `index`. Not synced here: publishing
    /// syncs the whole file system first, and a lost index only costs reading the files it named.
    func save(_ index: StateIndex, in build: DirectoryHandle, display: String) throws(SystemError) {
        let metadata = try build.openDirectory(CacheNames.metadata, path: display + "/" + CacheNames.metadata)
        try withExtendedLifetime(metadata) { () throws(SystemError) in
            try AtomicFile.replace(CacheNames.state, in: metadata.raw, with: index.encoded(), durable: false, display: metadata.path)
        }
    }

    /// Renames the newest generation that publishing would prune to `recycle/`, when no run holds its
    /// lock; returns its name, or nil when none was.
    func recycle(keep: Int) throws(SystemError) -> String? {
        guard let candidate = Self.recycleCandidate(among: try generations(), current: current(), keep: keep),
              let lock = try? CacheLock(root: CacheRoot(named: candidate, in: root.directory, path: root.directory.pathOf(candidate)), wait: 0)
        else { return nil }
        return try withExtendedLifetime(lock) { () throws(SystemError) in
            try discard(CacheNames.spare)
            try root.directory.rename(candidate, to: CacheNames.recycle, in: root.directory)
            return candidate
        }
    }

    /// The generation a build recycles: the newest one older than `current` that publishing the build would prune.
    static func recycleCandidate(among all: [String], current: String?, keep: Int) -> String? {
        guard let current, let number = number(of: current) else { return nil }
        return prunable(among: all, current: current, keep: keep - 1).last { Self.number(of: $0)! < number }
    }

    /// Links the files `names` (the state index, the accepted version) of `source`'s `.assetsync/` into
    /// `build`'s; both are only ever replaced under a fresh name, so a link shares nothing that is
    /// written. With `replacing`, a file already there goes first.
    func linkState(from source: DirectoryHandle, to build: DirectoryHandle, names: [String], replacing: Bool, display: String) throws(SystemError) {
        let metadataPath = display + "/" + CacheNames.metadata
        try build.makeDirectory(CacheNames.metadata, path: metadataPath)
        guard let metadata = try? source.openDirectory(CacheNames.metadata) else { return }
        let into = try build.openDirectory(CacheNames.metadata, path: metadataPath)
        // The highest signed version accepted goes along, or a new generation would forget it.
        for name in names {
            if replacing { try? into.removeFile(name) }
            do {
                try metadata.link(name, to: name, in: into, path: into.pathOf(name))
            } catch {
                guard error.code == EEXIST || error.code == ENOENT else { throw error }
            }
        }
    }
}
