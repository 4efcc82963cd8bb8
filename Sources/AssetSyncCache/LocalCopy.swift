import AssetSyncModel
import AssetSyncSystem
import Glibc

/// Fills a partial with bytes already on the machine (a `ReuseCandidate`) and proves them, so that
/// the normal commit can take them: by reflink (`FICLONE`) where the file system shares blocks,
/// else by `copy_file_range`, else by reading and writing.
package enum LocalCopy {
    /// How the bytes got into the partial.
    package enum Method: String, Sendable {
        case clone, copyRange = "copy_file_range", readWrite = "copy"
    }

    /// Fills the empty `partial` from `candidate` and proves the result; returns how, or nil when the
    /// candidate cannot be opened, is no longer of the entry's size, or its bytes are not the entry's.
    /// A nil leaves the partial empty, for the next candidate or the download.
    package static func fill(_ partial: PartialFile, from candidate: ReuseCandidate, buffer: UnsafeMutableRawBufferPointer) -> Method? {
        let size = partial.entry.size
        guard let raw = candidate.source.openFile(candidate.path) else { return nil }
        defer { close(raw) }
        let source = FileDescriptor(raw, path: candidate.displayPath)
        let target = FileDescriptor(partial.fd, path: partial.displayPath)
        do throws(SystemError) {
            let before = LocalItem(try source.status())
            guard before.size == size else { return nil }
            let method: Method
            if target.clone(from: source) {
                method = .clone
                // A clone shares the source's blocks as they were at the moment of the ioctl. When the
                // source's own index vouches for that file (DEST's state: the record a no-op run trusts),
                // and its size, mtime and inode match the record before and after the clone, the clone
                // holds the recorded bytes and needs no read: the same trust a no-op run places in it.
                // Anything else is read back below.
                if candidate.source.recordsVouch, let crc32 = candidate.record.crc32, candidate.record.describes(before),
                   candidate.record.describes(LocalItem(try source.status())) {
                    partial.adopt(length: size, crc: crc32, sha256: candidate.record.sha256)
                } else {
                    try adoptReadingBack(partial, buffer: buffer)
                }
            } else if target.copyRange(from: source, length: size) == size {
                method = .copyRange
                try adoptReadingBack(partial, buffer: buffer)
            } else {
                method = .readWrite
                try partial.restart()
                try copy(from: source, into: partial, buffer: buffer)
            }
            // The proof: size, CRC-32 and the SHA-256 when the manifest gives one, over the partial's own
            // bytes (what the commit will make visible), never the source's record alone, except for the
            // vouched clone above.
            do throws(CommitError) {
                try Committer.verify(partial)
            } catch {
                try partial.restart()
                return nil
            }
            return method
        } catch {
            try? partial.restart()
            return nil
        }
    }

    /// Reads the bytes the kernel put in the partial and takes them with their CRC-32.
    private static func adoptReadingBack(_ partial: PartialFile, buffer: UnsafeMutableRawBufferPointer) throws(SystemError) {
        guard let crc = try partial.crc(from: 0, length: partial.entry.size, buffer: buffer) else {
            throw SystemError("read", path: partial.displayPath, code: EIO)
        }
        partial.adopt(length: partial.entry.size, crc: crc)
    }

    /// Copies the entry's size in bytes from `source` through `buffer`, the CRC-32 computed over the bytes written.
    private static func copy(from source: FileDescriptor, into partial: PartialFile, buffer: UnsafeMutableRawBufferPointer) throws(SystemError) {
        while partial.offset < partial.entry.size {
            let wanted = Int(min(Int64(buffer.count), partial.entry.size - partial.offset))
            let got = try source.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<wanted]), at: partial.offset)
            guard got > 0 else { throw SystemError("read", path: source.path, code: EIO) }
            try partial.append(UnsafeRawBufferPointer(rebasing: buffer[0..<got]))
        }
    }
}
