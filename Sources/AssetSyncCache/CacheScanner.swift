public import AssetSyncModel
public import AssetSyncSystem
import Glibc

/// Walks a cache directory without following any symlink and without reading
/// file contents, recording every item by its path relative to the root (its
/// bytes: see `CacheListing`).
/// `.assetsync/` at the top is assetsync's own and is skipped.
public enum CacheScanner {
    /// Scans `root`, which the caller has already resolved; a missing root is an empty cache.
    public static func scan(root: String) throws(SystemError) -> CacheListing {
        let fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if fd < 0 {
            if errno == ENOENT { return CacheListing() }
            throw SystemError("open", path: root)
        }
        var found: [(path: String, item: LocalItem)] = []
        var path: [UInt8] = []
        try walk(directory: fd, displayPath: root, path: &path, into: &found)
        // Sized once: growing a dictionary hashes every key again at each doubling.
        var listing = CacheListing(items: [String: LocalItem](minimumCapacity: found.count))
        for (path, item) in found {
            if let first = listing.items.updateValue(item, forKey: path) {
                // Another spelling of a path found before (NFC and NFD): the key keeps the first spelling,
                // so it gets its own item back, and this one is set aside.
                listing.items[path] = first
                listing.twins.append((path, item))
            }
        }
        return listing
    }

    /// Reads one directory (taking ownership of `fd`), then descends into its subdirectories.
    /// `path` holds the directory's path relative to the root, with a trailing "/" (empty at the root).
    ///
    /// Names are taken as `String(cString:)` makes them: an invalid UTF-8 name is repaired, and
    /// the repaired name is what is looked up (and then not found). Valid names, which are the
    /// bytes themselves, are looked up straight from the directory entry.
    private static func walk(
        directory fd: Int32, displayPath: String, path: inout [UInt8], into found: inout [(path: String, item: LocalItem)]
    ) throws(SystemError) {
        guard let stream = fdopendir(fd) else {
            close(fd)
            throw SystemError("opendir", path: displayPath)
        }
        defer { closedir(stream) }
        let atRoot = path.isEmpty
        let directoryLength = path.count
        var subdirectories: [String] = []
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
                let isASCII = bytes.allSatisfy { $0 < 0x80 }
                let name = isASCII ? nil : String(cString: cName)
                path.removeSubrange(directoryLength...)
                if let name { path.append(contentsOf: name.utf8) } else { path.append(contentsOf: bytes) }
                let relative = String(decoding: path, as: UTF8.self)
                if kind == UInt8(DT_DIR) {
                    found.append((relative, LocalItem(kind: .directory, size: 0)))
                    subdirectories.append(name ?? String(decoding: bytes, as: UTF8.self))
                    return nil
                }
                var status = stat()
                let result = name.map { fstatat(dirfd(stream), $0, &status, AT_SYMLINK_NOFOLLOW) }
                    ?? fstatat(dirfd(stream), cName, &status, AT_SYMLINK_NOFOLLOW)
                if result != 0 {
                    if errno == ENOENT { return nil }  // removed while we looked
                    return SystemError("stat", path: displayPath + "/" + (name ?? String(cString: cName)))
                }
                let item = LocalItem(status)
                found.append((relative, item))
                if item.kind == .directory { subdirectories.append(name ?? String(decoding: bytes, as: UTF8.self)) }
                return nil
            }
            if let stop { throw stop }
        }
        for name in subdirectories {
            let child = openat(dirfd(stream), name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            if child < 0 {
                if errno == ENOENT { continue }
                throw SystemError("open", path: displayPath + "/" + name)
            }
            path.removeSubrange(directoryLength...)
            path.append(contentsOf: name.utf8)
            path.append(UInt8(ascii: "/"))
            try walk(directory: child, displayPath: displayPath + "/" + name, path: &path, into: &found)
        }
    }

    /// ".", "..", and ".assetsync" at the root.
    private static func isSkipped(_ name: UnsafeBufferPointer<UInt8>, atRoot: Bool) -> Bool {
        let dot = UInt8(ascii: ".")
        switch name.count {
        case 1: return name[0] == dot
        case 2: return name[0] == dot && name[1] == dot
        case 10: return atRoot && name.elementsEqual(".assetsync".utf8)
        default: return false
        }
    }
}
