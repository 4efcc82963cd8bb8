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
        let display = root.path + "/" + CacheNames.build
        var status = stat()
        let resuming = fstatat(root.fd, CacheNames.build, &status, AT_SYMLINK_NOFOLLOW) == 0
        buildHasInodesOf = nil
        buildIndex = nil
        let recycled = !resuming && fstatat(root.fd, CacheNames.recycle, &status, AT_SYMLINK_NOFOLLOW) != 0 ? try recycle(keep: keep) : nil
        let recycling = !resuming && fstatat(root.fd, CacheNames.recycle, &status, AT_SYMLINK_NOFOLLOW) == 0
        let name = recycling ? CacheNames.recycle : CacheNames.build
        if !recycling, mkdirat(root.fd, CacheNames.build, 0o755) != 0, errno != EEXIST { throw SystemError("mkdir", path: display) }
        let current = current()
        clonesFiles = current != nil && DirectoryTree.canClone(in: root.partialFD, display: root.path + "/" + CacheNames.metadata + "/" + CacheNames.partial)
        if let mode = Self.mode(in: root.metadataFD, display: root.path + "/" + CacheNames.metadata), mode.clonesFiles != clonesFiles {
            try remember(Mode(keep: mode.keep, clonesFiles: clonesFiles))
        }
        let source = openat(parentFD, destName, O_RDONLY | O_DIRECTORY | O_CLOEXEC)  // DEST, through its link
        guard source >= 0 else {
            if errno == ENOENT { return display }  // the first pull of a new DEST starts empty
            throw SystemError("open", path: destPath)
        }
        defer { close(source) }
        let build = openat(root.fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard build >= 0 else { throw SystemError("open", path: root.path + "/" + name) }
        defer { close(build) }
        var previous: StateIndex?
        var records: CloneRecords?
        if clonesFiles {
            // Both indexes are read at once: each is a parse of up to one line per file.
            let loading = BackgroundWork { [root] in StateIndex.saved(inCache: build, display: root.path + "/" + name) }
            let current = StateIndex.saved(inCache: source, display: destPath) ?? StateIndex()
            previous = loading.value()
            records = CloneRecords(current: current, previous: previous ?? StateIndex(), resumed: resuming)
        }
        let sharing: DirectoryTree.FileSharing = records.map { records in .clone { records.cloned($0, source: $1, clone: $2) } } ?? .hardLink
        let changes: Int
        if recycling {
            let spare = try SpareTree(in: root.fd, display: root.path + "/" + CacheNames.spare)
            try linkState(from: build, to: spare.fd, names: [CacheNames.state, AcceptedVersion.fileName], replacing: false, display: spare.display)
            changes = try DirectoryTree.link(
                from: source, to: build, skipping: [CacheNames.metadata], sharing: sharing, mirroring: true,
                keeps: records.map { records in { path, present, wanted in
                    // Not the current file itself (left by an earlier build of hard links): a clone replaces it.
                    present.inode != wanted.inode && records.holdsCurrentBytes(path, present: present.inode, wanted: wanted.inode)
                } }, discard: spare.keep, display: display)
        } else {
            changes = try DirectoryTree.link(from: source, to: build, skipping: [CacheNames.metadata], sharing: sharing, display: display)
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
        if recycling, renameat(root.fd, CacheNames.recycle, root.fd, CacheNames.build) != 0 { throw SystemError("rename", path: display) }
        if !resuming { buildHasInodesOf = clonesFiles ? (changes == 0 ? recycled : nil) : current }
        return display
    }

    /// Moves the partial downloads of a plain DEST into the first generation's `.assetsync/partial/`,
    /// so that its pull resumes them rather than downloading again; a name `next/` already has (from
    /// an interrupted first pull) stays as it is. The caller holds DEST's own lock (`destIsPlain`), so
    /// no run writes them meanwhile.
    func carryPartials(from dest: Int32, into build: Int32, display: String) throws(SystemError) {
        let metadata = openat(dest, CacheNames.metadata, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard metadata >= 0 else { return }
        defer { close(metadata) }
        let partials = openat(metadata, CacheNames.partial, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard partials >= 0 else { return }
        defer { close(partials) }
        let names = try DirectoryTree.entries(of: partials, display: destPath + "/" + CacheNames.metadata + "/" + CacheNames.partial).map(\.name)
        guard !names.isEmpty else { return }
        let into = try DirectoryTree.openMaking([CacheNames.metadata, CacheNames.partial], in: build, display: display)
        defer { close(into) }
        var status = stat()
        for name in names where fstatat(into, name, &status, AT_SYMLINK_NOFOLLOW) != 0 {
            guard renameat(partials, name, into, name) == 0 else { throw SystemError("rename", path: destPath + "/" + CacheNames.metadata + "/" + CacheNames.partial + "/" + name) }
        }
    }

    /// Replaces the state index of the cache directory `build` by `index`. Not synced here: publishing
    /// syncs the whole file system first, and a lost index only costs reading the files it named.
    func save(_ index: StateIndex, in build: Int32, display: String) throws(SystemError) {
        let metadata = openat(build, CacheNames.metadata, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard metadata >= 0 else { throw SystemError("open", path: display + "/" + CacheNames.metadata) }
        defer { close(metadata) }
        try AtomicFile.replace(CacheNames.state, in: metadata, with: index.encoded(), durable: false, display: display + "/" + CacheNames.metadata)
    }

    /// Renames the newest generation that publishing would prune to `recycle/`, when no run holds its
    /// lock; returns its name, or nil when none was.
    func recycle(keep: Int) throws(SystemError) -> String? {
        guard let candidate = Self.recycleCandidate(among: try generations(), current: current(), keep: keep),
              let lock = try? CacheLock(root: CacheRoot(named: candidate, in: root.fd, path: root.path + "/" + candidate), wait: 0)
        else { return nil }
        return try withExtendedLifetime(lock) { () throws(SystemError) in
            try discard(CacheNames.spare)
            guard renameat(root.fd, candidate, root.fd, CacheNames.recycle) == 0 else { throw SystemError("rename", path: root.path + "/" + candidate) }
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
    func linkState(from source: Int32, to build: Int32, names: [String], replacing: Bool, display: String) throws(SystemError) {
        if mkdirat(build, CacheNames.metadata, 0o755) != 0, errno != EEXIST { throw SystemError("mkdir", path: display + "/" + CacheNames.metadata) }
        let metadata = openat(source, CacheNames.metadata, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard metadata >= 0 else { return }
        defer { close(metadata) }
        let into = openat(build, CacheNames.metadata, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard into >= 0 else { throw SystemError("open", path: display + "/" + CacheNames.metadata) }
        defer { close(into) }
        // The highest signed version accepted goes along, or a new generation would forget it.
        for name in names {
            if replacing { unlinkat(into, name, 0) }
            if linkat(metadata, name, into, name, 0) != 0, errno != EEXIST, errno != ENOENT {
                throw SystemError("link", path: display + "/" + CacheNames.metadata + "/" + name)
            }
        }
    }
}
