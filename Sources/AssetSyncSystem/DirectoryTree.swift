import CSystemShim
package import Glibc

/// Whole directory trees, handled by descriptor without following a symlink: a generation of the
/// cache made of hard links or clones of another, one removed, two names swapped in one step.
package enum DirectoryTree {
    /// Takes a name out of a tree being mirrored: `name` in `directory`, at `relativePath` (its place
    /// from the top of the tree, for a caller that keeps what it takes out).
    package typealias Discard = (_ name: String, _ directory: Int32, _ relativePath: String) throws(SystemError) -> Void

    /// Whether a file `destination` already holds, at `relativePath` from the top of the tree, is the
    /// one `source` holds there, when mirroring: by default, the same inode.
    package typealias Keeps = (_ relativePath: String, _ present: Entry, _ wanted: Entry) -> Bool

    /// How `link` gives `destination` each regular file of `source`.
    package enum FileSharing {
        /// A hard link: one inode under both names, so an edit in place through either changes both.
        case hardLink
        /// A reflink (`FICLONE`) with the source's mode and mtime: a new inode that shares the source's
        /// blocks until either is written. A file that cannot be cloned is hard-linked instead. `cloned`
        /// hears of each clone made: its path from the top of the tree, the source's status and its own.
        case clone(cloned: (_ relativePath: String, _ source: stat, _ clone: stat) -> Void)
    }

    /// Makes `destination` hold every non-directory under `source` (shared as `sharing` says; a symlink
    /// is linked, never followed) and a directory for each directory, skipping the top-level names in
    /// `skipping`. A name `destination` already holds is kept as it is; with `mirroring`, a file is kept
    /// only when `keeps` says it is the one `source` holds (the same inode, as `getdents` tells without a
    /// `stat`, by default), else replaced, and names `source` lacks go, so that `destination` becomes
    /// the same tree. What goes is handed to `discard` (removed when there is none). Returns the changes
    /// made to `destination`: names made and names gone.
    package static func link(
        from source: Int32, to destination: Int32, skipping: Set<String> = [], sharing: FileSharing = .hardLink,
        mirroring: Bool = false, keeps: Keeps? = nil, discard: Discard? = nil, display: String, relativePath: String = ""
    ) throws(SystemError) -> Int {
        var changes = 0
        let wanted = try entries(of: source, display: display).filter { !skipping.contains($0.name) }
        var present: [String: Entry] = [:]
        func path(_ name: String) -> String { relativePath.isEmpty ? name : relativePath + "/" + name }
        func drop(_ name: String) throws(SystemError) {
            changes += 1
            if let discard { try discard(name, destination, path(name)) } else { try remove(name, in: destination, display: display) }
        }
        if mirroring {
            let names = Set(wanted.map(\.name))
            for entry in try entries(of: destination, display: display) where !skipping.contains(entry.name) {
                if names.contains(entry.name) { present[entry.name] = entry } else { try drop(entry.name) }
            }
        }
        for entry in wanted {
            let name = entry.name
            if let old = present[name] {
                let same = old.isDirectory == entry.isDirectory
                    && (entry.isDirectory || keeps.map { $0(path(name), old, entry) } ?? (old.inode == entry.inode))
                if !same {
                    try drop(name)
                } else if !entry.isDirectory {
                    continue
                }
            }
            guard entry.isDirectory else {
                if try share(entry, from: source, to: destination, sharing: sharing, relativePath: path(name), display: display) { changes += 1 }
                continue
            }
            if mkdirat(destination, name, 0o755) == 0 {
                changes += 1
            } else if errno != EEXIST {
                throw SystemError("mkdir", path: display + "/" + name)
            }
            let from = openat(source, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            guard from >= 0 else { throw SystemError("open", path: display + "/" + name) }
            defer { close(from) }
            let into = openat(destination, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            // Something other than a directory already holds the name in `destination`: it stays.
            guard into >= 0 else { continue }
            defer { close(into) }
            changes += try link(from: from, to: into, sharing: sharing, mirroring: mirroring, keeps: keeps, discard: discard,
                display: display + "/" + name, relativePath: path(name))
        }
        return changes
    }

    /// Gives `destination` the file `entry` of `source` under the same name, cloned when `sharing` asks
    /// and it can be, else hard-linked; false when the name is already taken there.
    private static func share(
        _ entry: Entry, from source: Int32, to destination: Int32, sharing: FileSharing, relativePath: String, display: String
    ) throws(SystemError) -> Bool {
        if case .clone(let cloned) = sharing, entry.isRegular {
            switch try clone(entry.name, from: source, to: destination, display: display) {
            case .made(let status, let clone):
                cloned(relativePath, status, clone)
                return true
            case .taken: return false
            case .notCloned: break
            }
        }
        if linkat(source, entry.name, destination, entry.name, 0) == 0 { return true }
        if errno == EEXIST { return false }
        throw SystemError("link", path: display + "/" + entry.name)
    }

    private enum CloneResult {
        case made(source: stat, clone: stat)
        /// `destination` already holds the name.
        case taken
        /// Not a regular file when opened, or the file system would not clone it: the caller links it.
        case notCloned
    }

    /// Clones the regular file `name` of `source` into `destination` under the same name, with its mode
    /// and mtime. A clone that fails half-made is removed.
    private static func clone(_ name: String, from source: Int32, to destination: Int32, display: String) throws(SystemError) -> CloneResult {
        let from = openat(source, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard from >= 0 else { return .notCloned }
        defer { close(from) }
        var status = stat()
        guard fstat(from, &status) == 0, status.st_mode & S_IFMT == S_IFREG else { return .notCloned }
        let mode = status.st_mode & 0o7777
        let into = openat(destination, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode)
        guard into >= 0 else {
            if errno == EEXIST { return .taken }
            throw SystemError("open", path: display + "/" + name)
        }
        defer { close(into) }
        var clone = stat()
        guard asc_clone_file(into, from) == 0, fchmod(into, mode) == 0,
              asc_set_mtime(into, Int64(status.st_mtim.tv_sec), Int64(status.st_mtim.tv_nsec)) == 0, fstat(into, &clone) == 0 else {
            unlinkat(destination, name, 0)
            return .notCloned
        }
        return .made(source: status, clone: clone)
    }

    /// Whether files in `directory` can be cloned (`FICLONE`): two files made, one cloned, both removed.
    package static func canClone(in directory: Int32, display: String) -> Bool {
        guard let first = try? AtomicFile.createTemporary(for: "clone-probe", in: directory, mode: 0o600, display: display) else { return false }
        defer {
            close(first.fd)
            unlinkat(directory, first.name, 0)
        }
        guard let second = try? AtomicFile.createTemporary(for: "clone-probe", in: directory, mode: 0o600, display: display) else { return false }
        defer {
            close(second.fd)
            unlinkat(directory, second.name, 0)
        }
        var byte: UInt8 = 1
        guard write(first.fd, &byte, 1) == 1 else { return false }
        let source = openat(directory, first.name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)  // a clone's source is read
        guard source >= 0 else { return false }
        defer { close(source) }
        return asc_clone_file(second.fd, source) == 0
    }

    /// Opens the directory `components` under `directory`, making each that is missing; none may be a symlink.
    package static func openMaking(_ components: some Sequence<String>, in directory: Int32, display: String) throws(SystemError) -> Int32 {
        var current = dup(directory)
        guard current >= 0 else { throw SystemError("dup", path: display) }
        var path = display
        for component in components {
            path += "/" + component
            if mkdirat(current, component, 0o755) != 0, errno != EEXIST {
                close(current)
                throw SystemError("mkdir", path: path)
            }
            let next = openat(current, component, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            close(current)
            guard next >= 0 else { throw SystemError("open", path: path) }
            current = next
        }
        return current
    }

    /// Removes `name` in `directory` and everything under it; a symlink is removed, never followed.
    /// Whatever cannot be removed stays (the first failure is thrown once the rest is done).
    package static func remove(_ name: String, in directory: Int32, display: String) throws(SystemError) {
        if unlinkat(directory, name, 0) == 0 || errno == ENOENT { return }
        guard errno == EISDIR else { throw SystemError("unlink", path: display + "/" + name) }
        let inner = openat(directory, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard inner >= 0 else { throw SystemError("open", path: display + "/" + name) }
        var failure: SystemError?
        do throws(SystemError) {
            for entry in try entries(of: inner, display: display + "/" + name) {
                do throws(SystemError) { try remove(entry.name, in: inner, display: display + "/" + name) } catch { failure = failure ?? error }
            }
        } catch {
            failure = failure ?? error
        }
        close(inner)
        if let failure { throw failure }
        if unlinkat(directory, name, AT_REMOVEDIR) != 0, errno != ENOENT { throw SystemError("rmdir", path: display + "/" + name) }
    }

    /// Swaps two existing names in one step (`renameat2` with `RENAME_EXCHANGE`): a reader sees one or
    /// the other, never neither. A directory may trade places with a symlink.
    package static func exchange(_ first: String, in firstDirectory: Int32, with second: String, in secondDirectory: Int32, display: String) throws(SystemError) {
        guard asc_rename_exchange(firstDirectory, first, secondDirectory, second) == 0 else { throw SystemError("renameat2", path: display) }
    }

    /// One name in a directory, as `getdents` tells it.
    package struct Entry {
        package let name: String
        /// A directory, not a link to one.
        package let isDirectory: Bool
        /// A regular file, not a link to one.
        package let isRegular: Bool
        package let inode: UInt64
    }

    /// The names in `directory` (but `.` and `..`).
    package static func entries(of directory: Int32, display: String) throws(SystemError) -> [Entry] {
        let copy = dup(directory)
        guard copy >= 0, let stream = fdopendir(copy) else {
            if copy >= 0 { close(copy) }
            throw SystemError("opendir", path: display)
        }
        defer { closedir(stream) }
        rewinddir(stream)
        var names: [Entry] = []
        while true {
            errno = 0
            guard let entry = readdir(stream) else {
                if errno != 0 { throw SystemError("readdir", path: display) }
                return names
            }
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
            if name == "." || name == ".." { continue }
            var type = mode_t(entry.pointee.d_type) << 12  // DT_* are the S_IF* type bits, shifted down
            if entry.pointee.d_type == DT_UNKNOWN {
                var status = stat()
                type = fstatat(directory, name, &status, AT_SYMLINK_NOFOLLOW) == 0 ? status.st_mode & S_IFMT : 0
            }
            names.append(Entry(name: name, isDirectory: type == S_IFDIR, isRegular: type == S_IFREG, inode: UInt64(entry.pointee.d_ino)))
        }
    }
}
