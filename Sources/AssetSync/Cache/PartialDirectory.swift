import Glibc

/// Housekeeping of `DEST/.assetsync/partial/` at the start of a pull.
enum PartialDirectory {
    /// Removes every partial that cannot continue: one whose name matches no manifest entry,
    /// one whose resume record is missing, torn, or describes another version of its entry,
    /// and temporary leftovers. Returns the bytes kept per entry path, for the disk preflight.
    static func sweep(_ root: CacheRoot, entries: @autoclosure () -> [String: ManifestEntry]) -> [String: Int64] {
        let files = list(root)
        if files.isEmpty { return [:] }  // the usual case, and a no-op run's: nothing to match
        let entries = entries()
        let names = TransferEngine.uniquePartialNames(Array(entries.keys))
        var entryByName: [String: ManifestEntry] = [:]
        for (path, name) in names { entryByName[name] = entries[path] }
        var kept: [String: Int64] = [:]
        var verdicts: [String: Int64?] = [:]
        for file in files {
            let (base, suffix) = split(file)
            if verdicts[base] == nil { verdicts[base] = keepableBytes(root, base, entryByName[base]) }
            if suffix == ".part" || suffix == ".resume", let bytes = verdicts[base]!, let entry = entryByName[base] {
                kept[entry.path] = bytes
            } else {
                unlinkat(root.partialFD, file, 0)
            }
        }
        return kept
    }

    /// The bytes of the partial named `base` if it can continue `entry`: its record matches, its part fits.
    private static func keepableBytes(_ root: CacheRoot, _ base: String, _ entry: ManifestEntry?) -> Int64? {
        guard let entry, let record = PartialFile.loadRecord(root: root, name: base), record.matches(entry) else { return nil }
        var status = stat()
        guard fstatat(root.partialFD, base + ".part", &status, AT_SYMLINK_NOFOLLOW) == 0,
              status.st_mode & S_IFMT == S_IFREG, Int64(status.st_size) <= entry.size
        else { return nil }
        return Int64(status.st_size)
    }

    /// "0123abcd.part" → ("0123abcd", ".part"); the suffix is everything from the first dot.
    private static func split(_ file: String) -> (base: String, suffix: String) {
        guard let dot = file.firstIndex(of: ".") else { return (file, "") }
        return (String(file[..<dot]), String(file[dot...]))
    }

    private static func list(_ root: CacheRoot) -> [String] {
        let fd = dup(root.partialFD)
        guard fd >= 0, let stream = fdopendir(fd) else { return [] }
        defer { closedir(stream) }
        rewinddir(stream)
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(cString: $0.baseAddress!.assumingMemoryBound(to: CChar.self)) }
            if name != ".", name != ".." { names.append(name) }
        }
        return names
    }
}
