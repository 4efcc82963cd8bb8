package import AssetSyncModel
package import AssetSyncSystem
import Glibc

/// The commit protocol: a partial becomes visible at its final
/// path only once it is durable and proven, and then atomically.
package enum Committer {
    /// The file mode given to committed files: 0666 less the process umask, read once.
    static let fileMode: mode_t = {
        let mask = umask(0o022)
        umask(mask)
        return 0o666 & ~mask
    }()

    /// Whether the partial holds exactly the manifest's bytes: its size and its CRC-32, computed
    /// while streaming over the bytes written; then, when the entry gives a SHA-256, that digest of
    /// the bytes on disk, read back once (segments, resumed and copied bytes all end up there alike).
    package static func verify(_ partial: PartialFile) throws(CommitError) {
        if let reason = mismatch(received: partial.offset, crc: partial.crc.value, for: partial.entry) { throw .mismatch(reason) }
        guard partial.entry.sha256 != nil else { return }
        let digest: SHA256Digest
        if let vouched = partial.vouchedSHA256 {
            digest = vouched
        } else {
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 4096)
            defer { buffer.deallocate() }
            do {
                digest = try SHA256.of(fd: partial.fd, length: partial.entry.size, buffer: buffer, path: partial.displayPath)
            } catch {
                throw .local(.system(error))
            }
        }
        if let reason = mismatch(sha256: digest, for: partial.entry) { throw .mismatch(reason) }
    }

    /// How bytes whose SHA-256 is `digest` differ from `entry`'s (whose CRC-32, if it gives one, they matched), or nil.
    package static func mismatch(sha256 digest: SHA256Digest, for entry: ManifestEntry) -> String? {
        guard let expected = entry.sha256, digest != expected else { return nil }
        return "SHA-256 is \(digest.hex), expected \(expected.hex)" + (entry.crc32 == nil ? "" : " (the CRC-32 matched)")
    }

    /// How `received` bytes whose CRC-32 is `crc` differ from `entry`'s size and CRC-32 (when it
    /// gives one), or nil when they match.
    package static func mismatch(received: Int64, crc: UInt32, for entry: ManifestEntry) -> String? {
        guard received == entry.size else { return "received \(received) bytes, expected \(entry.size)" }
        if let expected = entry.crc32, crc != expected { return "CRC-32 is \(CRC32Text.hex(crc)), expected \(CRC32Text.hex(expected))" }
        return nil
    }

    /// Commits verified partials as one group: their data made durable (`fdatasync` for
    /// one file, a single `syncfs` for several, which costs one journal commit instead of
    /// one per file), each checked to be still the file this run wrote and of the manifest's
    /// size, the mode set, each `renameat` into place (replacing a symlink there, never
    /// writing through it), then each parent directory fsynced once.
    /// Returns, in order, nil for each committed partial or the error that stopped it.
    /// `steps` counts the syncs, the renames and the directories' syncs.
    package static func commit(
        _ partials: [PartialFile], steps: StepTimes = StepTimes(), syncingDirectoriesWith syncDirectory: DirectorySync = { try $0.sync() }
    ) -> [CacheError?] {
        guard let first = partials.first else { return [] }
        var errors = [CacheError?](repeating: nil, count: partials.count)
        do throws(SystemError) {
            let file = FileDescriptor(first.fd, path: first.displayPath)
            try steps.measure(.syncs) { () throws(SystemError) in
                if partials.count == 1 { try file.syncData() } else { try file.syncFileSystem() }
            }
        } catch {
            return errors.map { _ in CacheError.system(error) }
        }
        var moves = [Move?](repeating: nil, count: partials.count)
        let checked = StepTimes.nanoseconds()
        for (index, partial) in partials.enumerated() {
            do throws(CacheError) {
                try checkOnDisk(partial)
                do {
                    try FileDescriptor(partial.fd, path: partial.displayPath).setMode(fileMode)
                } catch {
                    throw .system(error)
                }
                moves[index] = Move(name: partial.partName, path: partial.entry.path)
            } catch {
                errors[index] = error
            }
        }
        steps.add(StepTimes.nanoseconds() - checked, to: .renames)
        place(moves, in: first.root, errors: &errors, steps: steps, syncDirectory: syncDirectory) { index in
            if partials[index].hasResumeRecord { try? first.root.partialDirectory.removeFile(partials[index].recordName) }
        }
        return errors
    }

    /// Proves that the bytes on disk are the ones this run wrote and counted (a partial has one writer): the
    /// partial's name still leads to the open file, which holds exactly the manifest's size. A
    /// partial truncated or replaced by another writer is never committed.
    private static func checkOnDisk(_ partial: PartialFile) throws(CacheError) {
        let open: stat
        do {
            open = try FileDescriptor(partial.fd, path: partial.displayPath).status()
        } catch {
            throw .system(error)
        }
        guard let named = try? partial.root.partialDirectory.status(of: partial.partName) else {
            throw .partialChanged(path: partial.displayPath, detail: "it was removed")
        }
        guard named.st_dev == open.st_dev, named.st_ino == open.st_ino else {
            throw .partialChanged(path: partial.displayPath, detail: "another file took its name")
        }
        guard Int64(open.st_size) == partial.entry.size else {
            throw .partialChanged(path: partial.displayPath, detail: "\(open.st_size) bytes on disk, expected \(partial.entry.size)")
        }
    }

    /// Makes a directory's entries durable: `fsync`, unless a test stands in for it.
    package typealias DirectorySync = (DirectoryHandle) throws(SystemError) -> Void

    /// How many empty entries one group commits: each holds no descriptor, so a group can be large.
    package static let emptyGroupSize = 4096

    /// Makes empty files visible at their entries' paths, as one group like `commit`'s: each proven
    /// first (`emptyMismatch`: an entry whose CRC-32 or SHA-256 is not that of zero bytes fails, and
    /// nothing is made for it), created afresh in `partial/` (never through an existing inode), one
    /// `syncfs`, the renames, then each parent directory fsynced once. Returns, in order, each file's
    /// state record or why it failed.
    package static func commitEmpty(
        _ entries: [ManifestEntry], in root: CacheRoot, syncingDirectoriesWith syncDirectory: DirectorySync = { try $0.sync() }
    ) -> [Result<StateIndex.Record, CommitError>] {
        var results = [Result<StateIndex.Record, CommitError>](repeating: .failure(.mismatch("")), count: entries.count)
        var moves = [Move?](repeating: nil, count: entries.count)
        let names = PartialFile.uniqueNames(entries.map(\.path))
        for (index, entry) in entries.enumerated() {
            if let reason = emptyMismatch(for: entry) {
                results[index] = .failure(.mismatch(reason))
                continue
            }
            let name = names[entry.path]! + ".empty"
            do throws(CacheError) {
                results[index] = .success(try createEmpty(name, for: entry, in: root))
                moves[index] = Move(name: name, path: entry.path)
            } catch {
                results[index] = .failure(.local(error))
            }
        }
        guard moves.contains(where: { $0 != nil }) else { return results }
        do throws(SystemError) {
            try root.partialDirectory.descriptor.syncFileSystem()
        } catch {
            let error = CommitError.local(.system(error))
            for index in moves.indices where moves[index] != nil {
                try? root.partialDirectory.removeFile(moves[index]!.name)
                results[index] = .failure(error)
            }
            return results
        }
        var errors = [CacheError?](repeating: nil, count: entries.count)
        place(moves, in: root, errors: &errors, steps: StepTimes(), syncDirectory: syncDirectory) { _ in }
        for index in errors.indices {
            guard let error = errors[index] else { continue }
            results[index] = .failure(.local(error))
            try? root.partialDirectory.removeFile(moves[index]!.name)  // still there when the rename failed
        }
        return results
    }

    /// The SHA-256 of zero bytes, which every empty file has.
    static let emptySHA256 = SHA256.digest(of: UnsafeRawBufferPointer(start: nil, count: 0))

    /// How an empty file differs from `entry`, which gives size 0, or nil when it is what the entry
    /// describes: the proof `verify` makes of any download, over no bytes (CRC-32 00000000, the SHA-256
    /// of nothing when the entry gives one).
    static func emptyMismatch(for entry: ManifestEntry) -> String? {
        if let crc32 = entry.crc32, crc32 != 0 {
            return "the manifest gives size 0 with CRC-32 \(CRC32Text.hex(crc32)), but an empty file's is 00000000"
        }
        return mismatch(sha256: emptySHA256, for: entry)
    }

    /// Creates the empty file `name` in `partial/` with the committed mode, removing (by name) any
    /// leftover of that name first; returns the state record it will have once renamed, with the
    /// checksums `entry` gives (proven by `emptyMismatch`).
    private static func createEmpty(_ name: String, for entry: ManifestEntry, in root: CacheRoot) throws(CacheError) -> StateIndex.Record {
        let partials = root.partialDirectory
        let display = partials.pathOf(name)
        let fd: Int32
        do throws(SystemError) {
            do {
                fd = try partials.openFile(name, flags: O_WRONLY | O_CREAT | O_EXCL, mode: fileMode, path: display)
            } catch {
                guard error.code == EEXIST else { throw error }
                do {
                    try partials.removeFile(name)
                } catch {
                    throw SystemError("open", path: display, code: error.code)
                }
                fd = try partials.openFile(name, flags: O_WRONLY | O_CREAT | O_EXCL, mode: fileMode, path: display)
            }
        } catch {
            throw .system(error)
        }
        defer { close(fd) }
        let file = FileDescriptor(fd, path: display)
        do {
            try file.setMode(fileMode)
            return StateIndex.Record(LocalItem(try file.status()), crc32: entry.crc32, sha256: entry.sha256)
        } catch {
            throw .system(SystemError("chmod", path: display, code: error.code))
        }
    }

    /// A file in `partial/` and the entry path it becomes.
    private struct Move {
        var name: String
        var path: String
    }

    /// Renames each move's file from `partial/` to its path, then fsyncs each parent directory once, and
    /// once each directory that received a directory made for this group (else a crash could lose the new
    /// directory with the files in it). A failed directory fsync fails exactly the files it was to make
    /// durable, and the error names that directory. `renamed` is called for each file once it is in place.
    private static func place(
        _ moves: [Move?], in root: CacheRoot, errors: inout [CacheError?], steps: StepTimes, syncDirectory: DirectorySync,
        renamed: (Int) -> Void
    ) {
        let start = StepTimes.nanoseconds()
        var parents: [Substring: DirectoryHandle] = [:]
        /// For each parent directory, the indexes of the files renamed into it.
        var placed: [Substring: [Int]] = [:]
        /// The directories made on the way to this group's files.
        var made: [Substring] = []
        for (index, move) in moves.enumerated() {
            guard let move else { continue }
            let parentPath = PathName.split(move.path).parent ?? ""
            do throws(CacheError) {
                let parent: DirectoryHandle
                if let open = parents[parentPath] {
                    parent = open
                } else {
                    parent = try root.openParent(of: move.path) { made.append($0) }
                    parents[parentPath] = parent
                }
                try rename(move.name, from: root.partialDirectory, to: move.path, in: parent, root: root)
                placed[parentPath, default: []].append(index)
                renamed(index)
            } catch {
                errors[index] = error
            }
        }
        /// For each directory to fsync, the indexes of the files that are durable only once it is.
        var durableWith = placed
        for directory in made {
            let beneath = placed.filter { $0.key == directory || $0.key.hasPrefix(directory + "/") }.flatMap(\.value)
            if !beneath.isEmpty { durableWith[PathName.split(String(directory)).parent ?? "", default: []] += beneath }
        }
        steps.add(StepTimes.nanoseconds() - start, to: .renames)
        for (directoryPath, indexes) in durableWith {
            let synced = StepTimes.nanoseconds()
            defer { steps.add(StepTimes.nanoseconds() - synced, to: .directorySyncs) }
            do throws(CacheError) {
                if parents[directoryPath] == nil { parents[directoryPath] = try root.openDirectory(at: directoryPath) }
                do {
                    try syncDirectory(parents[directoryPath]!)
                } catch {
                    throw .system(error)
                }
            } catch {
                for index in indexes { errors[index] = error }
            }
        }
    }

    /// Renames `name` in `directory` to the last component of `path` in `parent`; a directory in its
    /// place is an obstruction (a file never replaces a directory: `renameat` refuses with EISDIR).
    private static func rename(
        _ name: String, from directory: DirectoryHandle, to path: String, in parent: DirectoryHandle, root: CacheRoot
    ) throws(CacheError) {
        let display = root.path + "/" + path
        do {
            try directory.rename(name, to: String(PathName.split(path).name), in: parent, path: display)
        } catch {
            if error.code == EISDIR { throw .obstructed(path: display, by: .directory) }
            throw .system(error)
        }
    }
}

/// Why a commit did not happen.
package enum CommitError: Error, Equatable {
    /// The bytes are not the manifest's: discard them.
    case mismatch(String)
    case local(CacheError)
}
