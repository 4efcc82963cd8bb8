import CSystemShim
import Glibc

/// Whole directory trees, handled by descriptor without following a symlink: a generation of the
/// cache made of hard links to another, one removed, two names swapped in one step.
package enum DirectoryTree {
    /// Takes a name out of a tree being mirrored: `name` in `directory`, at `relativePath` (its place
    /// from the top of the tree, for a caller that keeps what it takes out).
    package typealias Discard = (_ name: String, _ directory: Int32, _ relativePath: String) throws(SystemError) -> Void

    /// Makes `destination` hold a hard link to every non-directory under `source` (symlinks are linked,
    /// never followed) and a directory for each directory, skipping the top-level names in `skipping`.
    /// A name `destination` already holds is kept as it is; with `mirroring`, it is kept only when it is
    /// the same inode (as `getdents` tells, without a `stat`), else replaced by the link, and names
    /// `source` lacks go, so that `destination` becomes the same tree. What goes is handed to `discard`
    /// (removed when there is none). Returns the links made.
    package static func link(
        from source: Int32, to destination: Int32, skipping: Set<String> = [], mirroring: Bool = false,
        discard: Discard? = nil, display: String, relativePath: String = ""
    ) throws(SystemError) -> Int {
        var made = 0
        let wanted = try entries(of: source, display: display).filter { !skipping.contains($0.name) }
        var present: [String: Entry] = [:]
        func drop(_ name: String) throws(SystemError) {
            if let discard { try discard(name, destination, relativePath.isEmpty ? name : relativePath + "/" + name) } else { try remove(name, in: destination, display: display) }
        }
        if mirroring {
            let names = Set(wanted.map(\.name))
            for entry in try entries(of: destination, display: display) where !skipping.contains(entry.name) {
                if names.contains(entry.name) { present[entry.name] = entry } else { try drop(entry.name) }
            }
        }
        for entry in wanted {
            let name = entry.name
            if let old = present[name], old.isDirectory != entry.isDirectory || (!entry.isDirectory && old.inode != entry.inode) {
                try drop(name)
            } else if present[name] != nil, !entry.isDirectory {
                continue
            }
            guard entry.isDirectory else {
                if linkat(source, name, destination, name, 0) == 0 {
                    made += 1
                } else if errno != EEXIST {
                    throw SystemError("link", path: display + "/" + name)
                }
                continue
            }
            if mkdirat(destination, name, 0o755) != 0, errno != EEXIST { throw SystemError("mkdir", path: display + "/" + name) }
            let from = openat(source, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            guard from >= 0 else { throw SystemError("open", path: display + "/" + name) }
            defer { close(from) }
            let into = openat(destination, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            // Something other than a directory already holds the name in `destination`: it stays.
            guard into >= 0 else { continue }
            defer { close(into) }
            made += try link(from: from, to: into, mirroring: mirroring, discard: discard, display: display + "/" + name,
                relativePath: relativePath.isEmpty ? name : relativePath + "/" + name)
        }
        return made
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
            var isDirectory = entry.pointee.d_type == DT_DIR
            if entry.pointee.d_type == DT_UNKNOWN {
                var status = stat()
                isDirectory = fstatat(directory, name, &status, AT_SYMLINK_NOFOLLOW) == 0 && status.st_mode & S_IFMT == S_IFDIR
            }
            names.append(Entry(name: name, isDirectory: isDirectory, inode: UInt64(entry.pointee.d_ino)))
        }
    }
}
