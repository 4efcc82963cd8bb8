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

    /// fsync, compare size and CRC, set the mode, `renameat` into place (replacing
    /// a symlink there, never writing through it), fsync the directory.
    static func commit(_ partial: PartialFile) throws(CommitError) {
        let entry = partial.entry
        guard fdatasync(partial.fd) == 0 else { throw .local(.system(SystemError("fsync", path: partial.displayPath))) }
        guard partial.offset == entry.size else {
            throw .mismatch("received \(partial.offset) bytes, expected \(entry.size)")
        }
        guard partial.crc.value == entry.crc32 else {
            throw .mismatch("CRC-32 is \(CRC32Text.hex(partial.crc.value)), expected \(CRC32Text.hex(entry.crc32))")
        }
        guard fchmod(partial.fd, fileMode) == 0 else { throw .local(.system(SystemError("chmod", path: partial.displayPath))) }
        try place(partial.partName, from: partial.root.partialFD, at: entry.path, in: partial.root)
        unlinkat(partial.root.partialFD, partial.recordName, 0)
    }

    /// Makes an empty file visible at `entry.path`: nothing to download for size 0.
    static func commitEmpty(_ entry: ManifestEntry, in root: CacheRoot) throws(CommitError) {
        guard entry.crc32 == 0 else {
            throw .mismatch("the manifest gives size 0 with CRC-32 \(CRC32Text.hex(entry.crc32)), but an empty file's is 00000000")
        }
        let name = PartialFile.name(for: entry.path) + ".empty"
        let fd = openat(root.partialFD, name, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, fileMode)
        guard fd >= 0 else { throw .local(.system(SystemError("open", path: root.path + "/.assetsync/partial/" + name))) }
        fchmod(fd, fileMode)
        close(fd)
        try place(name, from: root.partialFD, at: entry.path, in: root)
    }

    private static func place(_ name: String, from directory: Int32, at path: String, in root: CacheRoot) throws(CommitError) {
        let parent: Int32
        do { parent = try root.openParent(of: path) } catch { throw .local(error) }
        defer { close(parent) }
        let base = String(path.split(separator: "/").last!)
        let display = root.path + "/" + path
        var status = stat()
        if fstatat(parent, base, &status, AT_SYMLINK_NOFOLLOW) == 0, status.st_mode & S_IFMT == S_IFDIR {
            throw .local(.obstructed(path: display, by: .directory))
        }
        guard renameat(directory, name, parent, base) == 0 else { throw .local(.system(SystemError("rename", path: display))) }
        guard fsync(parent) == 0 else { throw .local(.system(SystemError("fsync", path: display))) }
    }
}

/// Why a commit did not happen.
enum CommitError: Error, Equatable {
    /// The bytes are not the manifest's: discard them.
    case mismatch(String)
    case local(CacheError)
}
