import Dispatch
import Glibc

/// Proves files that are present with the right size by reading them and
/// computing their CRC-32, on all cores.
enum ContentCheck {
    /// For each entry, the state record proving the file at its path, or nil when its bytes
    /// do not match the entry's CRC-32 (or it cannot be read as a regular file).
    static func proofs(of entries: [ManifestEntry], in root: CacheRoot) -> [StateIndex.Record?] {
        let results = UnsafeMutableBufferPointer<StateIndex.Record?>.allocate(capacity: entries.count)
        results.initialize(repeating: nil)
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
                shared.buffer[index] = proof(of: entries[index], in: root, buffer: buffer)
            }
        }
        return Array(results)
    }

    /// The record of the regular file at the entry's path if its CRC-32 matches, from the `fstat`
    /// taken before reading it.
    static func proof(of entry: ManifestEntry, in root: CacheRoot, buffer: UnsafeMutableRawBufferPointer) -> StateIndex.Record? {
        guard let parent = try? root.openParent(of: entry.path, creating: false) else { return nil }
        defer { close(parent) }
        let name = String(entry.path.split(separator: "/").last!)
        let fd = openat(parent, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var status = stat()
        guard fstat(fd, &status) == 0, status.st_mode & S_IFMT == S_IFREG, Int64(status.st_size) == entry.size else { return nil }
        posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL)
        guard (try? CRC32.of(fd: fd, length: entry.size, buffer: buffer, path: root.path + "/" + entry.path)) == entry.crc32
        else { return nil }
        return StateIndex.Record(LocalItem(status), crc32: entry.crc32)
    }
}

/// A buffer handed to worker threads that each write distinct indices.
private struct SendableBuffer: @unchecked Sendable {
    let buffer: UnsafeMutableBufferPointer<StateIndex.Record?>
    init(_ buffer: UnsafeMutableBufferPointer<StateIndex.Record?>) { self.buffer = buffer }
}
