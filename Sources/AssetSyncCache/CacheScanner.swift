package import AssetSyncModel
package import AssetSyncSystem
import Glibc

/// Walks a cache directory without following any symlink and without reading
/// file contents, recording every item by its path relative to the root (its
/// bytes: see `CacheListing`), in `PathOrder`.
/// `.assetsync/` at the top is assetsync's own and is skipped.
package enum CacheScanner {
    /// Scans `root`, which the caller has already resolved; a missing root is an empty cache.
    package static func scan(root: String) throws(SystemError) -> CacheListing {
        let fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if fd < 0 {
            if errno == ENOENT { return CacheListing() }
            throw SystemError("open", path: root)
        }
        return try scan(directory: fd, display: root)
    }

    /// Scans the directory open as `fd`, which it takes over (and closes): a walk that holds its
    /// directory, whatever is renamed meanwhile.
    package static func scan(directory fd: Int32, display: String) throws(SystemError) -> CacheListing {
        var found: [CacheListing.Entry] = []
        var path: [UInt8] = []
        try walk(directory: fd, displayPath: display, path: &path, into: &found)
        return CacheListing(sorted: found)
    }

    /// One name read from a directory, and what `stat` (or, for a directory, the directory entry) said
    /// of it; a directory is two children: its own item, and the walk into it.
    private struct Child {
        /// Where the name starts in the directory's name buffer, NUL-terminated there.
        var start: Int
        var length: Int
        var item: LocalItem
        /// The walk into the directory: its place is that of its paths, which go on with a "/".
        var descends: Bool
        /// The first 16 bytes of the name (with the "/" of a walk into a directory), big-endian and padded
        /// with zeros, which no name holds: most siblings are told apart by two integer comparisons.
        var prefix: (UInt64, UInt64) = (0, 0)

        init(start: Int, length: Int, item: LocalItem, descends: Bool, names: [UInt8]) {
            self.start = start
            self.length = length
            self.item = item
            self.descends = descends
            var words: (UInt64, UInt64) = (0, 0)
            for offset in 0..<16 {
                let byte: UInt8 = offset < length ? names[start + offset]
                    : (offset == length && descends ? UInt8(ascii: "/") : 0)
                if offset < 8 { words.0 = words.0 << 8 | UInt64(byte) } else { words.1 = words.1 << 8 | UInt64(byte) }
            }
            prefix = words
        }
    }

    /// Reads one directory (taking ownership of `fd`), then records its children in `PathOrder`,
    /// descending into each subdirectory in its turn. `path` holds the directory's path relative to
    /// the root, with a trailing "/" (empty at the root).
    ///
    /// Siblings are ordered by their names, and the walk into a directory by its name with a "/"
    /// after it, which all its paths start with: taking the children in that order lists the whole
    /// tree in byte order without sorting more than one directory at a time.
    ///
    /// Names are taken as `String(cString:)` makes them: an invalid UTF-8 name is repaired, and
    /// the repaired name is what is looked up (and then not found). Valid names, which are the
    /// bytes themselves, are looked up straight from the directory entry.
    private static func walk(
        directory fd: Int32, displayPath: String, path: inout [UInt8], into found: inout [CacheListing.Entry]
    ) throws(SystemError) {
        guard let stream = fdopendir(fd) else {
            close(fd)
            throw SystemError("opendir", path: displayPath)
        }
        defer { closedir(stream) }
        let atRoot = path.isEmpty
        var names: [UInt8] = []
        var children: [Child] = []
        func add(_ child: Child) {
            children.append(child)
            if child.item.kind == .directory {
                children.append(Child(start: child.start, length: child.length, item: child.item, descends: true, names: names))
            }
        }
        while true {
            errno = 0
            guard let entry = readdir(stream) else {
                if errno != 0 { throw SystemError("readdir", path: displayPath) }
                break
            }
            let kind = entry.pointee.d_type
            let stop: SystemError? = withUnsafeBytes(of: &entry.pointee.d_name) { raw -> SystemError? in
                let cName = raw.baseAddress!.assumingMemoryBound(to: CChar.self)
                let bytes = UnsafeRawBufferPointer(start: raw.baseAddress!, count: strlen(cName)).bindMemory(to: UInt8.self)
                if isSkipped(bytes, atRoot: atRoot) { return nil }
                let start = names.count
                if bytes.allSatisfy({ $0 < 0x80 }) {
                    names.append(contentsOf: bytes)
                } else {
                    names.append(contentsOf: String(cString: cName).utf8)
                }
                let length = names.count - start
                names.append(0)
                if kind == UInt8(DT_DIR) {
                    add(Child(start: start, length: length, item: LocalItem(kind: .directory, size: 0), descends: false, names: names))
                    return nil
                }
                var status = stat()
                let result = names.withUnsafeBufferPointer { names in
                    UnsafeRawPointer(names.baseAddress! + start).withMemoryRebound(to: CChar.self, capacity: length + 1) {
                        fstatat(dirfd(stream), $0, &status, AT_SYMLINK_NOFOLLOW)
                    }
                }
                if result != 0 {
                    names.removeSubrange(start...)
                    if errno == ENOENT { return nil }  // removed while we looked
                    return SystemError("stat", path: displayPath + "/" + String(cString: cName))
                }
                add(Child(start: start, length: length, item: LocalItem(status), descends: false, names: names))
                return nil
            }
            if let stop { throw stop }
        }
        names.withUnsafeBufferPointer { names in
            children.sort { a, b in
                Self.precedes(names, a, before: b)
            }
        }
        let directoryLength = path.count
        for child in children {
            path.removeSubrange(directoryLength...)
            path.append(contentsOf: names[child.start..<(child.start + child.length)])
            guard child.descends else {
                found.append(CacheListing.Entry(path: String(decoding: path, as: UTF8.self), item: child.item))
                continue
            }
            let name = String(decoding: names[child.start..<(child.start + child.length)], as: UTF8.self)
            let subdirectory = openat(dirfd(stream), name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            if subdirectory < 0 {
                if errno == ENOENT { continue }
                throw SystemError("open", path: displayPath + "/" + name)
            }
            path.append(UInt8(ascii: "/"))
            try walk(directory: subdirectory, displayPath: displayPath + "/" + name, path: &path, into: &found)
        }
    }

    /// Whether sibling `a` sorts before `b` by name, with a "/" after the name of a walk into a directory.
    private static func precedes(_ names: UnsafeBufferPointer<UInt8>, _ a: Child, before b: Child) -> Bool {
        if a.prefix != b.prefix { return a.prefix < b.prefix }
        let common = min(a.length, b.length)
        let order = PathOrder.compare(
            UnsafeBufferPointer(rebasing: names[a.start..<(a.start + common)]),
            UnsafeBufferPointer(rebasing: names[b.start..<(b.start + common)]))
        if order != 0 { return order < 0 }
        // One name starts with the other (they differ: siblings): compare the next byte, "/" after a directory.
        let nextA: Int = a.length > common ? Int(names[a.start + common]) : (a.descends ? Int(UInt8(ascii: "/")) : -1)
        let nextB: Int = b.length > common ? Int(names[b.start + common]) : (b.descends ? Int(UInt8(ascii: "/")) : -1)
        return nextA < nextB
    }

    /// ".", "..", and ".assetsync" at the root.
    private static func isSkipped(_ name: UnsafeBufferPointer<UInt8>, atRoot: Bool) -> Bool {
        let dot = UInt8(ascii: ".")
        switch name.count {
        case 1: return name[0] == dot
        case 2: return name[0] == dot && name[1] == dot
        default: return atRoot && name.elementsEqual(CacheNames.metadata.utf8)
        }
    }
}
