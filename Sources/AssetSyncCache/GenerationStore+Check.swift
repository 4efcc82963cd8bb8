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
        let top: DirectoryHandle
        do {
            top = try root.directory.openDirectory(generation)
        } catch {
            return ["it cannot be opened: \(error.reason)"]
        }
        let display = top.path
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
        of entry: StateIndex.Entry, in top: DirectoryHandle, display: String, reading: Bool, buffer: UnsafeMutableRawBufferPointer
    ) -> String? {
        let components = entry.path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard components.allSatisfy({ !$0.isEmpty && $0 != "." && $0 != ".." }) else { return "is not a path a generation can hold" }
        var directory = try? top.duplicate()
        for component in components.dropLast() {
            directory = try? directory?.openDirectory(component)
        }
        guard let directory else { return "is missing" }
        let fd: Int32
        do {
            fd = try directory.openFile(components.last!, flags: O_RDONLY | O_NONBLOCK)
        } catch {
            return error.code == ENOENT ? "is missing" : "cannot be opened: \(error.reason)"
        }
        defer { close(fd) }
        let status: stat
        do {
            status = try FileDescriptor(fd).status()
        } catch {
            return "cannot be examined: \(error.reason)"
        }
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
        if let crc32 = record.crc32, seen.crc32 != crc32 {
            return "holds other bytes than were proven: CRC-32 \(CRC32Text.hex(seen.crc32)), proven \(CRC32Text.hex(crc32))"
        }
        if let sha256 = record.sha256, seen.sha256 != sha256 { return "holds other bytes than were proven: its SHA-256 differs" }
        return nil
    }
}
