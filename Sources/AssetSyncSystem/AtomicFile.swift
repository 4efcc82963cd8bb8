import Glibc

/// Reads and replaces whole files so that nothing planted at their names can hang,
/// exhaust or redirect a run: the one way assetsync touches its own files under
/// `.assetsync/` (the state index, resume records, the remote manifest's cache).
///
/// A read never blocks and never follows a link, accepts only a regular file, and
/// stops at a caller-given size: anything else is absent or torn to the caller.
/// A write goes to a temporary file under a fresh name created with `O_EXCL`, which
/// then replaces the target by `renameat`: an existing inode, which could have other
/// hard links outside DEST, is never opened for writing. The temporary may be made in
/// another directory of the same file system (the cache stages its temporaries where
/// its in-flight files live, so that a killed run leaves nothing anywhere else).
package enum AtomicFile {
    /// What every temporary name holds after its target's name; a crashed run's leftovers are found by it.
    static let temporaryMarker = ".tmp-"

    /// The bytes of `name` in `directory`, or nil when it is missing, a link, not a regular file,
    /// longer than `limit` bytes, or grew while read: nobody's record (`RegularFileRead` without links).
    /// Throws when it is there but cannot be opened or read (permissions, I/O): that is no answer about what it holds.
    package static func read(_ name: String, in directory: Int32, limit: Int, display: String) throws(SystemError) -> [UInt8]? {
        guard case .bytes(let bytes) = try RegularFileRead.read(name, in: directory, limit: limit, display: display) else { return nil }
        return bytes
    }

    /// A new, empty file opened for writing under a name no one else holds.
    package struct Temporary {
        package let fd: Int32
        /// The directory the temporary was made in, which `name` is relative to.
        package let directory: Int32
        package let name: String
    }

    /// Creates `<name>.tmp-<random>` in `directory` with `O_CREAT | O_EXCL`; `display` names the directory in errors.
    package static func createTemporary(for name: String, in directory: Int32, mode: UInt32, display: String) throws(SystemError) -> Temporary {
        while true {
            let candidate = name + temporaryMarker + String(UInt64.random(in: .min ... .max), radix: 36)
            let fd = openat(directory, candidate, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode)
            if fd >= 0 { return Temporary(fd: fd, directory: directory, name: candidate) }
            if errno != EEXIST, errno != EINTR { throw SystemError("open", path: display + "/" + candidate) }
        }
    }

    /// Puts the temporary file in place of `name` in `directory` by `renameat`; when `durable`, fdatasync
    /// before and fsync `directory` after. The descriptor is closed, and the temporary removed on failure.
    static func publish(_ temporary: Temporary, as name: String, in directory: Int32, durable: Bool = true, display: String) throws(SystemError) {
        defer { close(temporary.fd) }
        do throws(SystemError) {
            if durable { _ = try retryingInterrupts("fsync", path: display + "/" + name) { fdatasync(temporary.fd) } }
            guard renameat(temporary.directory, temporary.name, directory, name) == 0 else { throw SystemError("rename", path: display + "/" + name) }
        } catch {
            unlinkat(temporary.directory, temporary.name, 0)
            throw error
        }
        if durable { _ = try retryingInterrupts("fsync", path: display) { fsync(directory) } }
    }

    /// Replaces `name` in `directory` with `bytes`, whole or not at all, through a temporary made in
    /// `staging` (a directory on the same file system; `directory` itself when nil). `display` names
    /// `directory` in errors. Without `durable`, a crash may lose the new file (never tear it): for
    /// records that only save work.
    package static func replace(
        _ name: String, in directory: Int32, stagingIn staging: Int32? = nil, with bytes: [UInt8], mode: UInt32 = 0o644,
        durable: Bool = true, display: String
    ) throws(SystemError) {
        let temporary = try createTemporary(for: name, in: staging ?? directory, mode: mode, display: display)
        do throws(SystemError) {
            try bytes.withBytes { bytes throws(SystemError) in
                try FileDescriptor(temporary.fd, path: display + "/" + name).writeAll(bytes)
            }
        } catch {
            close(temporary.fd)
            unlinkat(temporary.directory, temporary.name, 0)
            throw error
        }
        try publish(temporary, as: name, in: directory, durable: durable, display: display)
    }

    /// Replaces the file at `path` with `text` (for files outside the cache, such as `manifest --output`).
    /// Only a regular file is replaced: a rename over a device, a FIFO or a link (`/dev/null`,
    /// `/dev/stdout`) would put a file in its place, so anything else there is left as it is.
    package static func write(_ text: String, to path: String) throws(OutputFileError) {
        let directoryPath = PathName.directory(of: path)
        let name = String(PathName.split(path).name)
        let directory = open(directoryPath, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard directory >= 0 else { throw .system(SystemError("open", path: directoryPath)) }
        defer { close(directory) }
        var status = stat()
        if fstatat(directory, name, &status, AT_SYMLINK_NOFOLLOW) == 0, status.st_mode & S_IFMT != S_IFREG {
            throw .notRegular(path: path, type: RegularFileRead.words(forType: status.st_mode & S_IFMT))
        }
        do {
            try replace(name, in: directory, with: Array(text.utf8), display: directoryPath)
        } catch {
            throw .system(error)
        }
    }

    /// Removes what crashed runs left under temporary names in `directory` (the caller holds the lock,
    /// so no live run is writing one), and the fixed-name temporaries of earlier versions.
    package static func removeTemporaries(in directory: Int32) {
        let fd = dup(directory)
        guard fd >= 0 else { return }
        guard let stream = fdopendir(fd) else {
            close(fd)
            return
        }
        defer { closedir(stream) }
        rewinddir(stream)
        var leftovers: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(cString: $0.baseAddress!.assumingMemoryBound(to: CChar.self)) }
            if name.contains(temporaryMarker) || name.hasSuffix(".tmp") { leftovers.append(name) }
        }
        for name in leftovers { unlinkat(directory, name, 0) }
    }
}
