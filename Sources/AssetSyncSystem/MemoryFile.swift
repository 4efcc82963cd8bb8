import CSystemShim
import Glibc

/// Bytes read once from a file and held in an anonymous in-memory file (`memfd_create`): a reader
/// given `fd` reads exactly the bytes that were checked, whatever happens to the file they came from.
package final class MemoryFile {
    /// The bytes as read.
    package let bytes: [UInt8]
    /// A descriptor positioned at the start of the bytes; closed with this object.
    package let fd: Int32

    /// Reads all of `path` (at most `limit` bytes: nil beyond) and holds the bytes.
    package static func read(path: String, limit: Int) throws(SystemError) -> MemoryFile? {
        let source = open(path, O_RDONLY | O_CLOEXEC)
        guard source >= 0 else { throw SystemError("open", path: path) }
        defer { close(source) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 256 << 10)
        while true {
            let got = try chunk.withMutableBytes { buffer throws(SystemError) in try FileDescriptor(source, path: path).read(into: buffer) }
            if got == 0 { break }
            bytes += chunk[0..<got]
            if bytes.count > limit { return nil }
        }
        return try MemoryFile(bytes: bytes, name: path)
    }

    /// Holds `bytes` in a new anonymous file; `name` names it in errors.
    package init(bytes: [UInt8], name: String) throws(SystemError) {
        let created = asc_memfd_create("assetsync-manifest")
        guard created >= 0 else { throw SystemError("memfd_create", path: name) }
        do throws(SystemError) {
            try bytes.withBytes { buffer throws(SystemError) in try FileDescriptor(created, path: name).writeAll(buffer) }
            guard lseek(created, 0, SEEK_SET) == 0 else { throw SystemError("lseek", path: name) }
        } catch {
            close(created)
            throw error
        }
        self.bytes = bytes
        fd = created
    }

    deinit { close(fd) }
}
