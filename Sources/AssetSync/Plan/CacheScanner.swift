import Glibc

/// Walks a cache directory without following any symlink and without reading
/// file contents, recording every item by its path relative to the root.
/// `.assetsync/` at the top is assetsync's own and is skipped.
public enum CacheScanner {
    /// Scans `root`, which the caller has already resolved; a missing root is an empty cache.
    public static func scan(root: String) throws(SystemError) -> [String: LocalItem] {
        var items: [String: LocalItem] = [:]
        let fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if fd < 0 {
            if errno == ENOENT { return items }
            throw SystemError("open", path: root)
        }
        try walk(directory: fd, displayPath: root, prefix: "", into: &items)
        return items
    }

    /// Reads one directory (taking ownership of `fd`), then descends into its subdirectories.
    private static func walk(
        directory fd: Int32, displayPath: String, prefix: String, into items: inout [String: LocalItem]
    ) throws(SystemError) {
        guard let stream = fdopendir(fd) else {
            close(fd)
            throw SystemError("opendir", path: displayPath)
        }
        defer { closedir(stream) }
        var subdirectories: [String] = []
        while true {
            errno = 0
            guard let entry = readdir(stream) else {
                if errno != 0 { throw SystemError("readdir", path: displayPath) }
                break
            }
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(cString: raw.baseAddress!.assumingMemoryBound(to: CChar.self))
            }
            if name == "." || name == ".." || (prefix.isEmpty && name == ".assetsync") { continue }
            let path = prefix + name
            if entry.pointee.d_type == UInt8(DT_DIR) {
                items[path] = LocalItem(kind: .directory, size: 0)
                subdirectories.append(name)
                continue
            }
            var status = stat()
            if fstatat(dirfd(stream), name, &status, AT_SYMLINK_NOFOLLOW) != 0 {
                if errno == ENOENT { continue }  // removed while we looked
                throw SystemError("stat", path: displayPath + "/" + name)
            }
            let item = LocalItem(status)
            items[path] = item
            if item.kind == .directory { subdirectories.append(name) }
        }
        for name in subdirectories {
            let child = openat(dirfd(stream), name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            if child < 0 {
                if errno == ENOENT { continue }
                throw SystemError("open", path: displayPath + "/" + name)
            }
            try walk(directory: child, displayPath: displayPath + "/" + name, prefix: prefix + name + "/", into: &items)
        }
    }
}
