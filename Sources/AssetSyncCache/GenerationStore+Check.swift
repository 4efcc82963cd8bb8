import AssetSyncModel
import AssetSyncSystem
import Glibc

extension GenerationStore {
    /// What keeps `generation` from being published again as it was proven (for `rollback`): it must
    /// have its state index, and every file the index records must be there as recorded (regular,
    /// same size, mtime and inode, by `stat` alone); `reading` also reads each one for the CRC-32
    /// (and SHA-256) recorded. Empty when the generation is whole; at most `limit` problems, the last
    /// saying how many more there were.
    package func problems(of generation: String, reading: Bool, limit: Int = 10) -> [String] {
        let display = root.path + "/" + generation
        let top = openat(root.fd, generation, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard top >= 0 else { return ["it cannot be opened: \(SystemError("open", path: display).reason)"] }
        defer { close(top) }
        guard let index = StateIndex.saved(inCache: top, display: display) else {
            return ["it has no readable state index (\(CacheNames.metadata)/\(CacheNames.state)): its pull never finished, or it was emptied or damaged"]
        }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: reading ? 1 << 17 : 0, alignment: 4096)
        defer { buffer.deallocate() }
        var problems: [String] = []
        var more = 0
        for entry in index.entries {
            guard let problem = Self.problem(of: entry, in: top, display: display, reading: reading, buffer: buffer) else { continue }
            if problems.count < limit { problems.append("'\(entry.path)' \(problem)") } else { more += 1 }
        }
        if more > 0 { problems.append("and \(more) more") }
        return problems
    }

    /// What is wrong with the file `entry` records, beneath `top`; nil when it is as proven.
    private static func problem(
        of entry: StateIndex.Entry, in top: Int32, display: String, reading: Bool, buffer: UnsafeMutableRawBufferPointer
    ) -> String? {
        let components = entry.path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard components.allSatisfy({ !$0.isEmpty && $0 != "." && $0 != ".." }) else { return "is not a path a generation can hold" }
        var directory = dup(top)
        for component in components.dropLast() {
            let next = directory >= 0 ? openat(directory, component, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) : -1
            if directory >= 0 { close(directory) }
            directory = next
        }
        guard directory >= 0 else { return "is missing" }
        defer { close(directory) }
        let fd = openat(directory, components.last!, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return errno == ENOENT ? "is missing" : "cannot be opened: \(String(cString: strerror(errno)))" }
        defer { close(fd) }
        var status = stat()
        guard fstat(fd, &status) == 0 else { return "cannot be examined: \(String(cString: strerror(errno)))" }
        let item = LocalItem(status)
        let record = entry.record
        guard record.describes(item) else {
            guard item.kind == .regular else { return "is no longer a regular file" }
            return item.size != record.size
                ? "has \(item.size) bytes where \(record.size) were proven"
                : "changed since it was proven (another inode or modification time)"
        }
        guard reading else { return nil }
        let path = display + "/" + entry.path
        guard let seen = try? FileChecksums.of(fd: fd, length: record.size, withSHA256: record.sha256 != nil, buffer: buffer, path: path) else {
            return "cannot be read: \(String(cString: strerror(errno)))"
        }
        if seen.crc32 != record.crc32 { return "holds other bytes than were proven: CRC-32 \(CRC32Text.hex(seen.crc32)), proven \(CRC32Text.hex(record.crc32))" }
        if let sha256 = record.sha256, seen.sha256 != sha256 { return "holds other bytes than were proven: its SHA-256 differs" }
        return nil
    }
}
