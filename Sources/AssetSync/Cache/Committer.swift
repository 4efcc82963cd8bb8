import CSystemShim
import Glibc

/// The commit protocol of invariant 2: a partial becomes visible at its final
/// path only once it is durable and proven, and then atomically.
enum Committer {
    /// The file mode given to committed files: 0666 less the process umask, read once.
    static let fileMode: mode_t = {
        let mask = umask(0o022)
        umask(mask)
        return 0o666 & ~mask
    }()

    /// Whether the partial holds exactly the manifest's bytes: its size and its CRC-32,
    /// computed while streaming over the bytes written.
    static func verify(_ partial: PartialFile) throws(CommitError) {
        let entry = partial.entry
        guard partial.offset == entry.size else {
            throw .mismatch("received \(partial.offset) bytes, expected \(entry.size)")
        }
        guard partial.crc.value == entry.crc32 else {
            throw .mismatch("CRC-32 is \(CRC32Text.hex(partial.crc.value)), expected \(CRC32Text.hex(entry.crc32))")
        }
    }

    /// Commits verified partials as one group: their data made durable (`fdatasync` for
    /// one file, a single `syncfs` for several, which costs one journal commit instead of
    /// one per file), the mode set, each `renameat` into place (replacing a symlink there,
    /// never writing through it), then each parent directory fsynced once.
    /// Returns, in order, nil for each committed partial or the error that stopped it.
    static func commit(_ partials: [PartialFile]) -> [CacheError?] {
        guard let first = partials.first else { return [] }
        var errors = [CacheError?](repeating: nil, count: partials.count)
        let durable = partials.count == 1 ? fdatasync(first.fd) : asc_syncfs(first.fd)
        if durable != 0 {
            let error = CacheError.system(SystemError(partials.count == 1 ? "fsync" : "syncfs", path: first.displayPath))
            return errors.map { _ in error }
        }
        var parents: [Substring: Int32] = [:]
        defer { for fd in parents.values { close(fd) } }
        var touched: [Substring: String] = [:]
        for (index, partial) in partials.enumerated() {
            let path = partial.entry.path
            let parentPath = path.utf8.lastIndex(of: UInt8(ascii: "/")).map { path[..<$0] } ?? ""
            do throws(CacheError) {
                guard fchmod(partial.fd, fileMode) == 0 else { throw .system(SystemError("chmod", path: partial.displayPath)) }
                let parent: Int32
                if let open = parents[parentPath] {
                    parent = open
                } else {
                    parent = try partial.root.openParent(of: path)
                    parents[parentPath] = parent
                }
                try rename(partial.partName, from: partial.root.partialFD, to: path, in: parent, root: partial.root)
                touched[parentPath] = partial.root.path + "/" + path
                unlinkat(partial.root.partialFD, partial.recordName, 0)
            } catch {
                errors[index] = error
            }
        }
        for (parentPath, display) in touched where fsync(parents[parentPath]!) != 0 {
            let error = CacheError.system(SystemError("fsync", path: display))
            for (index, partial) in partials.enumerated() where errors[index] == nil && partial.entry.path.hasPrefix(parentPath) {
                errors[index] = error
            }
        }
        return errors
    }

    /// Makes an empty file visible at `entry.path`: nothing to download for size 0.
    @discardableResult
    static func commitEmpty(_ entry: ManifestEntry, in root: CacheRoot) throws(CommitError) -> StateIndex.Record {
        guard entry.crc32 == 0 else {
            throw .mismatch("the manifest gives size 0 with CRC-32 \(CRC32Text.hex(entry.crc32)), but an empty file's is 00000000")
        }
        let name = PartialFile.name(for: entry.path) + ".empty"
        let fd = openat(root.partialFD, name, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, fileMode)
        guard fd >= 0 else { throw .local(.system(SystemError("open", path: root.path + "/.assetsync/partial/" + name))) }
        fchmod(fd, fileMode)
        var status = stat()
        fstat(fd, &status)
        close(fd)
        do throws(CacheError) {
            let parent = try root.openParent(of: entry.path)
            defer { close(parent) }
            try rename(name, from: root.partialFD, to: entry.path, in: parent, root: root)
            guard fsync(parent) == 0 else { throw .system(SystemError("fsync", path: root.path + "/" + entry.path)) }
        } catch {
            throw .local(error)
        }
        return StateIndex.Record(LocalItem(status), crc32: 0)
    }

    /// Renames `name` in `directory` to the last component of `path` in `parent`; a directory in its place is an obstruction.
    private static func rename(
        _ name: String, from directory: Int32, to path: String, in parent: Int32, root: CacheRoot
    ) throws(CacheError) {
        let base = String(path[(path.utf8.lastIndex(of: UInt8(ascii: "/")).map { path.utf8.index(after: $0) } ?? path.startIndex)...])
        let display = root.path + "/" + path
        var status = stat()
        if fstatat(parent, base, &status, AT_SYMLINK_NOFOLLOW) == 0, status.st_mode & S_IFMT == S_IFDIR {
            throw .obstructed(path: display, by: .directory)
        }
        guard renameat(directory, name, parent, base) == 0 else { throw .system(SystemError("rename", path: display)) }
    }
}

/// Why a commit did not happen.
enum CommitError: Error, Equatable {
    /// The bytes are not the manifest's: discard them.
    case mismatch(String)
    case local(CacheError)
}
