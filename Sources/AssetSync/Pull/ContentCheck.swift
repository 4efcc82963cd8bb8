import Dispatch
import Glibc

/// Proves files that are present with the right size by reading them and
/// computing their CRC-32, on all cores.
enum ContentCheck {
    /// For each path, whether its bytes match the entry's CRC-32 (false when unreadable).
    static func matches(_ entries: [ManifestEntry], in root: CacheRoot) -> [Bool] {
        let results = UnsafeMutableBufferPointer<Bool>.allocate(capacity: entries.count)
        results.initialize(repeating: false)
        defer { results.deallocate() }
        let next = AtomicCounter()
        let workers = max(1, min(entries.count, Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))))
        let shared = SendableBuffer(results)
        DispatchQueue.concurrentPerform(iterations: workers) { _ in
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
            defer { buffer.deallocate() }
            while true {
                let index = next.increment()
                guard index < entries.count else { return }
                shared.buffer[index] = crc(of: entries[index], in: root, buffer: buffer) == entries[index].crc32
            }
        }
        return Array(results)
    }

    /// The CRC-32 of the regular file at the entry's path, or nil if it cannot be read as one.
    static func crc(of entry: ManifestEntry, in root: CacheRoot, buffer: UnsafeMutableRawBufferPointer) -> UInt32? {
        guard let parent = try? root.openParent(of: entry.path, creating: false) else { return nil }
        defer { close(parent) }
        let name = String(entry.path.split(separator: "/").last!)
        let fd = openat(parent, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var status = stat()
        guard fstat(fd, &status) == 0, status.st_mode & S_IFMT == S_IFREG, Int64(status.st_size) == entry.size else { return nil }
        posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL)
        return try? CRC32.of(fd: fd, length: entry.size, buffer: buffer, path: root.path + "/" + entry.path)
    }
}

/// A buffer handed to worker threads that each write distinct indices.
private struct SendableBuffer: @unchecked Sendable {
    let buffer: UnsafeMutableBufferPointer<Bool>
    init(_ buffer: UnsafeMutableBufferPointer<Bool>) { self.buffer = buffer }
}
