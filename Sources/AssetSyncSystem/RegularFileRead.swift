import Glibc

/// What one bounded, non-blocking read of a whole regular file found: its bytes, or why there are none.
/// The open never blocks (`O_NONBLOCK`: a FIFO opens at once, and is then refused as what it is), the
/// file must be a regular one, and no more than `limit` bytes are read. `AtomicFile.read` is this read
/// for the files under `.assetsync/`; the signature and key files of `--trusted-key` and `sign` are
/// read the same way.
package enum RegularFileRead: Equatable {
    /// The whole file.
    case bytes([UInt8])
    /// Nothing read, and why.
    case notRead(Reason)

    /// Why a file was not read.
    package enum Reason: Equatable {
        /// Nothing at that name.
        case missing
        /// Something that is not a regular file, in words ("a FIFO (named pipe)"), never read from.
        case notRegular(String)
        /// A regular file longer than the limit.
        case tooLarge(limit: Int)
        /// More bytes than its size when it was opened: it was being written.
        case changed

        /// What is wrong with the file, worded to follow its name ("… is a FIFO (named pipe), not a regular file").
        package var words: String {
            switch self {
            case .missing: "does not exist"
            case .notRegular(let what): "is \(what), not a regular file"
            case .tooLarge(let limit): "is larger than \(limit) bytes"
            case .changed: "grew while it was read"
            }
        }
    }

    /// Reads `name` in `directory` (a path from the working directory with `AT_FDCWD`); a symbolic link
    /// is followed only with `followingLinks`, else refused as `notRegular`. `display` names the file in
    /// errors. Throws when it is there but cannot be opened or read (permissions, I/O).
    package static func read(
        _ name: String, in directory: Int32 = AT_FDCWD, limit: Int, followingLinks: Bool = false, display: String
    ) throws(SystemError) -> RegularFileRead {
        let fd = openat(directory, name, O_RDONLY | O_NONBLOCK | O_CLOEXEC | (followingLinks ? 0 : O_NOFOLLOW))
        guard fd >= 0 else {
            switch errno {
            case ENOENT: return .notRead(.missing)
            case ELOOP where !followingLinks: return .notRead(.notRegular("a symbolic link"))
            // What open(2) says of a socket, or of a device whose driver is not there.
            case ENXIO: return .notRead(.notRegular("a socket or a device"))
            default: throw SystemError("open", path: display)
            }
        }
        defer { close(fd) }
        var status = stat()
        guard fstat(fd, &status) == 0 else { throw SystemError("stat", path: display) }
        guard status.st_mode & S_IFMT == S_IFREG else { return .notRead(.notRegular(Self.words(forType: status.st_mode & S_IFMT))) }
        guard status.st_size <= limit else { return .notRead(.tooLarge(limit: limit)) }
        // One byte more than the file had: if that fills too, the file grew under us.
        var bytes = [UInt8](repeating: 0, count: Int(status.st_size) + 1)
        var got = 0
        while got < bytes.count {
            let result = try bytes.withMutableBytes { bytes throws(SystemError) in
                try FileDescriptor(fd, path: display).read(into: UnsafeMutableRawBufferPointer(rebasing: bytes[got...]), at: Int64(got))
            }
            if result == 0 { break }
            got += result
        }
        guard got < bytes.count else { return .notRead(.changed) }
        bytes.removeLast(bytes.count - got)
        return .bytes(bytes)
    }

    /// A file type of `st_mode` in words.
    package static func words(forType type: UInt32) -> String {
        switch type {
        case S_IFIFO: "a FIFO (named pipe)"
        case S_IFDIR: "a directory"
        case S_IFCHR: "a character device"
        case S_IFBLK: "a block device"
        case S_IFSOCK: "a socket"
        case S_IFLNK: "a symbolic link"
        default: "of an unknown type"
        }
    }
}
