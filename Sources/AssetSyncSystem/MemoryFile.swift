import CSystemShim
import Glibc

/// A file's bytes read once into an anonymous in-memory file (`memfd_create`) and mapped read-only:
/// `bytes` and a reader given `fd` see exactly the bytes that were read, whatever happens to the
/// file they came from, and no second copy is held in the process.
package final class MemoryFile {
    /// The bytes as read, mapped; valid while this object lives.
    package let bytes: UnsafeRawBufferPointer
    /// A descriptor positioned at the start of the bytes; closed with this object.
    package let fd: Int32

    /// `bytes` copied into a new in-memory file (`name` in errors).
    package static func holding(_ bytes: [UInt8], name: String) throws(SystemError) -> MemoryFile {
        let memory = asc_memfd_create("assetsync-copy")
        guard memory >= 0 else { throw SystemError("memfd_create", path: name) }
        do throws(SystemError) {
            try bytes.withBytes { buffer throws(SystemError) in try FileDescriptor(memory, path: name).writeAll(buffer) }
            guard lseek(memory, 0, SEEK_SET) == 0 else { throw SystemError("lseek", path: name) }
            return try MemoryFile(fd: memory, count: bytes.count, path: name)
        } catch {
            close(memory)
            throw error
        }
    }

    /// Reads all of `path` (at most `limit` bytes: nil beyond) into a new in-memory file.
    package static func read(path: String, limit: Int) throws(SystemError) -> MemoryFile? {
        let source = open(path, O_RDONLY | O_CLOEXEC)
        guard source >= 0 else { throw SystemError("open", path: path) }
        defer { close(source) }
        let memory = asc_memfd_create("assetsync-copy")
        guard memory >= 0 else { throw SystemError("memfd_create", path: path) }
        do throws(SystemError) {
            var chunk = [UInt8](repeating: 0, count: 256 << 10)
            var total = 0
            while true {
                let got = try chunk.withMutableBytes { buffer throws(SystemError) in try FileDescriptor(source, path: path).read(into: buffer) }
                if got == 0 { break }
                total += got
                if total > limit {
                    close(memory)
                    return nil
                }
                try chunk.withBytes { buffer throws(SystemError) in
                    try FileDescriptor(memory, path: path).writeAll(UnsafeRawBufferPointer(rebasing: buffer[0..<got]))
                }
            }
            guard lseek(memory, 0, SEEK_SET) == 0 else { throw SystemError("lseek", path: path) }
            return try MemoryFile(fd: memory, count: total, path: path)
        } catch {
            close(memory)
            throw error
        }
    }

    /// Maps the `count` bytes of the in-memory file `fd`, which this object then owns.
    private init(fd: Int32, count: Int, path: String) throws(SystemError) {
        if count == 0 {
            bytes = UnsafeRawBufferPointer(start: nil, count: 0)
        } else {
            let mapped = mmap(nil, count, PROT_READ, MAP_SHARED, fd, 0)
            guard let mapped, mapped != MAP_FAILED else { throw SystemError("mmap", path: path) }
            bytes = UnsafeRawBufferPointer(start: mapped, count: count)
        }
        self.fd = fd
    }

    deinit {
        if let start = bytes.baseAddress { munmap(UnsafeMutableRawPointer(mutating: start), bytes.count) }
        close(fd)
    }
}
