package import Glibc

/// An open directory that owns its descriptor (closed when the handle goes), and the calls assetsync
/// makes relative to it. None follows a symlink at the name it is given unless asked, and each failure
/// is a `SystemError` naming the call and the child's path (this directory's path and the name, unless
/// the caller names it otherwise), whose `code` is the `errno` to branch on. Opens, status and syncs are
/// retried on `EINTR`; calls that change names (mkdir, rename, link, unlink) are not, as before: a retry
/// of one that took effect would fail (EEXIST, ENOENT) where it succeeded.
package final class DirectoryHandle: Sendable {
    package let raw: Int32
    /// The directory's path, for messages.
    package let path: String

    /// Takes ownership of `raw`, a descriptor open on the directory at `path`.
    package init(adopting raw: Int32, path: String) {
        self.raw = raw
        self.path = path
    }

    /// The working directory (`AT_FDCWD`), which paths without a directory are relative to; never closed.
    package static let workingDirectory = DirectoryHandle(adopting: AT_FDCWD, path: "")

    /// Opens the directory at `path` (from the working directory); a symlink at its last component is
    /// followed only with `followingLink`.
    package convenience init(opening path: String, followingLink: Bool = true) throws(SystemError) {
        let flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC | (followingLink ? 0 : O_NOFOLLOW)
        self.init(adopting: try retryingInterrupts("open", path: path) { openat(AT_FDCWD, path, flags) }, path: path)
    }

    deinit { if raw != AT_FDCWD { close(raw) } }

    /// The path of `name` in this directory, for messages.
    package func pathOf(_ name: String) -> String { path.isEmpty ? name : path + "/" + name }

    /// A second handle on the same directory (`dup`), for a caller that keeps it.
    package func duplicate() throws(SystemError) -> DirectoryHandle {
        DirectoryHandle(adopting: try retryingInterrupts("dup", path: path) { dup(raw) }, path: path)
    }

    /// The directory `name` here (`openat` with `O_DIRECTORY`): a symlink there is refused (ELOOP or
    /// ENOTDIR) unless `followingLink`, and so is any other non-directory (ENOTDIR).
    package func openDirectory(_ name: String, followingLink: Bool = false, path display: String? = nil) throws(SystemError) -> DirectoryHandle {
        let display = display ?? pathOf(name)
        let flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC | (followingLink ? 0 : O_NOFOLLOW)
        return DirectoryHandle(adopting: try retryingInterrupts("open", path: display) { openat(raw, name, flags) }, path: display)
    }

    /// Opens the file `name` here with `flags`, to which `O_NOFOLLOW` and `O_CLOEXEC` are added, and
    /// `mode` for a file it creates; the caller owns (and closes) the descriptor.
    package func openFile(_ name: String, flags: Int32, mode: mode_t = 0, path display: String? = nil) throws(SystemError) -> Int32 {
        let flags = flags | O_NOFOLLOW | O_CLOEXEC
        return try retrying("open", name, display) { openat(raw, name, flags, mode) }
    }

    /// Makes the directory `name` here (`mkdirat`); false when the name was already taken (EEXIST).
    @discardableResult
    package func makeDirectory(_ name: String, mode: mode_t = 0o755, path display: String? = nil) throws(SystemError) -> Bool {
        if mkdirat(raw, name, mode) == 0 { return true }
        if errno == EEXIST { return false }
        throw SystemError("mkdir", path: display ?? pathOf(name))
    }

    /// Makes `name` here a symlink holding `target` (`symlinkat`).
    package func makeSymlink(_ name: String, to target: String, path display: String? = nil) throws(SystemError) {
        guard symlinkat(target, raw, name) == 0 else { throw SystemError("symlink", path: display ?? pathOf(name)) }
    }

    /// What the symlink `name` here holds (`readlinkat`, up to 4095 bytes); nil when it is no symlink,
    /// is missing, or holds nothing.
    package func linkTarget(of name: String) -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let count = readlinkat(raw, name, &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Renames `name` here to `newName` in `target` (`renameat`), replacing a file or an empty
    /// directory there; `display` names the path in the error (by default, `name`'s here).
    package func rename(_ name: String, to newName: String, in target: DirectoryHandle, path display: String? = nil) throws(SystemError) {
        guard renameat(raw, name, target.raw, newName) == 0 else { throw SystemError("rename", path: display ?? pathOf(name)) }
    }

    /// Renames `name` in the directory `source`, which this handle does not own, to `newName` here.
    package func moveHere(_ name: String, from source: Int32, as newName: String, path display: String) throws(SystemError) {
        guard renameat(source, name, raw, newName) == 0 else { throw SystemError("rename", path: display) }
    }

    /// Gives the file `name` here a second name, `newName` in `target` (`linkat`, never following a symlink).
    package func link(_ name: String, to newName: String, in target: DirectoryHandle, path display: String? = nil) throws(SystemError) {
        guard linkat(raw, name, target.raw, newName, 0) == 0 else { throw SystemError("link", path: display ?? pathOf(name)) }
    }

    /// Removes the non-directory `name` here (`unlinkat`; a symlink goes, never its target); with
    /// `allowingMissing`, a name already gone (ENOENT) is no failure.
    package func removeFile(_ name: String, allowingMissing: Bool = false, path display: String? = nil) throws(SystemError) {
        guard unlinkat(raw, name, 0) == 0 || (allowingMissing && errno == ENOENT) else {
            throw SystemError("unlink", path: display ?? pathOf(name))
        }
    }

    /// Removes the empty directory `name` here (`unlinkat` with `AT_REMOVEDIR`); with `allowingMissing`,
    /// a name already gone (ENOENT) is no failure.
    package func removeDirectory(_ name: String, allowingMissing: Bool = false, path display: String? = nil) throws(SystemError) {
        guard unlinkat(raw, name, AT_REMOVEDIR) == 0 || (allowingMissing && errno == ENOENT) else {
            throw SystemError("rmdir", path: display ?? pathOf(name))
        }
    }

    /// The status of `name` here itself, a symlink not followed (`fstatat` with `AT_SYMLINK_NOFOLLOW`).
    package func status(of name: String, path display: String? = nil) throws(SystemError) -> stat {
        var status = stat()
        _ = try retrying("stat", name, display) { fstatat(raw, name, &status, AT_SYMLINK_NOFOLLOW) }
        return status
    }

    /// The file type (`S_IFDIR`, `S_IFLNK`, ...) of `name` here, a symlink not followed; nil when it
    /// cannot be examined (missing, most often).
    package func kind(of name: String) -> mode_t? {
        (try? status(of: name)).map { $0.st_mode & S_IFMT }
    }

    /// Makes this directory's entries durable (`fsync`); `display` names it in the error.
    package func sync(path display: String? = nil) throws(SystemError) {
        _ = try retryingInterrupts("fsync", path: display ?? path) { fsync(raw) }
    }

    /// The names this directory holds (but `.` and `..`).
    package func entries() throws(SystemError) -> [DirectoryTree.Entry] { try DirectoryTree.entries(of: raw, display: path) }

    /// `body` until it stops failing with `EINTR`, as `retryingInterrupts` does, with the path of `name`
    /// made only for a failure: a status or an open that succeeds costs no string.
    private func retrying<T: BinaryInteger>(_ call: String, _ name: String, _ display: String?, _ body: () -> T) throws(SystemError) -> T {
        while true {
            let result = body()
            if result >= 0 { return result }
            let code = errno
            if code != EINTR { throw SystemError(call, path: display ?? pathOf(name), code: code) }
        }
    }

    /// The descriptor, borrowed, for the calls on any open file (`syncfs`, `fstat`).
    package var descriptor: FileDescriptor { FileDescriptor(raw, path: path) }
}
