package import AssetSyncModel
package import AssetSyncSystem
import Glibc

/// One in-flight download in `DEST/.assetsync/partial/`: the bytes so far
/// (`<name>.part`), the running CRC-32 over exactly those bytes, and the
/// resume record (`<name>.resume`) that says which entry they belong to, with
/// the transfer layer's fields (which version of the file), kept unread.
package final class PartialFile {
    package let root: CacheRoot
    package let entry: ManifestEntry
    package let name: String
    package let fd: Int32
    /// Bytes written so far; the next byte goes at this offset.
    package private(set) var offset: Int64 = 0
    package private(set) var crc = CRC32()
    /// The SHA-256 a state record vouches these bytes have (a clone of a vouched file), so that the
    /// proof need not read them; nil when the proof reads them back (see `Committer.verify`).
    package private(set) var vouchedSHA256: SHA256Digest?
    /// Where the bytes not yet handed to writeback begin.
    private var writebackStart: Int64 = 0
    /// The transfer layer's fields of the resume record found when the partial was opened;
    /// nil when the bytes started from zero.
    package private(set) var resumeFields: [String: String]?
    /// Whether a resume record of this run's bytes may be on disk: found at open or saved since.
    /// Without one (a small file keeps none) there is no record to remove at commit.
    private(set) var hasResumeRecord = false
    /// The segments being written when the file is fetched in segments, in the order made.
    private var segments: [PartialSegment] = []

    var partName: String { name + ".part" }
    var recordName: String { name + ".resume" }
    package var displayPath: String { root.partialDirectory.pathOf(partName) }

    /// Opens the partial for `entry` and takes its lock: a partial has one writer, so one that
    /// another process holds locked is left alone, never truncated. A record of the same entry
    /// whose fields `resumable` accepts continues from the bytes on disk (re-read to rebuild the
    /// CRC); anything else starts from zero. A record that `inSegments` accepts keeps the bytes
    /// for segments to continue (each re-reads its own), and the offset at zero.
    package init(
        root: CacheRoot, entry: ManifestEntry, name: String, buffer: UnsafeMutableRawBufferPointer,
        resumable: ([String: String]) -> Bool, inSegments: ([String: String]) -> Bool = { _ in false }
    ) throws(CacheError) {
        self.root = root
        self.entry = entry
        self.name = name
        let (fd, onDisk) = try Self.openLocked(in: root, name + ".part")
        self.fd = fd
        let path = root.partialDirectory.pathOf(partName)
        do throws(SystemError) {
            let fields = onDisk > 0 && onDisk <= entry.size ? Self.resumeFields(root: root, name: name, entry: entry) : nil
            if let fields, resumable(fields), inSegments(fields) {
                resumeFields = fields
                hasResumeRecord = true
            } else if let fields, resumable(fields) {
                resumeFields = fields
                hasResumeRecord = true
                crc = CRC32(resumingFrom: try CRC32.of(fd: fd, length: onDisk, buffer: buffer, path: path))
                offset = onDisk
                writebackStart = onDisk
            } else if onDisk > 0 {
                try restart()
            } else {
                // Just created (or left empty): nothing to truncate, only a stale record to drop.
                try? root.partialDirectory.removeFile(recordName)
            }
        } catch {
            throw .system(error)
        }
    }

    /// Opens `partName` for writing with an exclusive lock, without following a link or blocking,
    /// and returns it with its size. Anything but a regular file with one link (a FIFO, a hard link
    /// planted to make assetsync write elsewhere) is unlinked, by name only, and created afresh.
    private static func openLocked(in root: CacheRoot, _ partName: String) throws(CacheError) -> (fd: Int32, size: Int64) {
        let partials = root.partialDirectory
        let display = partials.pathOf(partName)
        for _ in 0..<4 {
            let fd: Int32
            do {
                fd = try partials.openFile(partName, flags: O_RDWR | O_CREAT | O_NONBLOCK, mode: 0o600, path: display)
            } catch {
                guard error.code == ELOOP || error.code == ENXIO else { throw .system(error) }
                do {
                    try partials.removeFile(partName)
                } catch {
                    throw .system(SystemError("open", path: display, code: error.code))
                }
                continue
            }
            let file = FileDescriptor(fd, path: display)
            let status: stat
            do throws(CacheError) {
                let locked: Bool
                do {
                    locked = try file.tryLock()
                } catch {
                    throw .system(SystemError("lock", path: display, code: error.code))
                }
                guard locked else { throw .partialInUse(path: display) }
                do {
                    status = try file.status()
                } catch {
                    throw .system(error)
                }
            } catch {
                close(fd)
                throw error
            }
            if status.st_mode & S_IFMT == S_IFREG, status.st_nlink == 1 { return (fd, Int64(status.st_size)) }
            close(fd)
            do {
                try partials.removeFile(partName, path: display)
            } catch {
                throw .system(error)
            }
        }
        throw .system(SystemError("open", path: display, code: ELOOP))
    }

    deinit {
        close(fd)
        if directFD >= 0 { close(directFD) }
    }

    /// Drops every byte and the record: the next response must start from zero.
    package func restart() throws(SystemError) {
        try FileDescriptor(fd, path: displayPath).truncate(to: 0)
        try? root.partialDirectory.removeFile(recordName)
        forgetProgress()
    }

    /// Writes `bytes` at the current offset and folds them into the CRC.
    package func append(_ bytes: UnsafeRawBufferPointer) throws(SystemError) {
        try write(bytes, at: offset)
        crc.update(bytes)
        offset += Int64(bytes.count)
        if offset - writebackStart >= Self.writebackInterval {
            // Start writing the last stretch to disk now, so the fsync at commit has little left to do
            // and dirty pages never pile up in memory.
            FileDescriptor(fd).startWriteback(from: writebackStart, length: offset - writebackStart)
            writebackStart = offset
        }
    }

    /// How many bytes are written between two writeback starts.
    static let writebackInterval: Int64 = 8 << 20

    /// A second descriptor of the partial, opened with `O_DIRECT` by `enableDirectWrites()`: block-aligned
    /// writes go through it straight to the disk, past the page cache, where filling gigabytes of
    /// page cache costs more CPU than the network; -1 while every write goes through `fd`.
    private var directFD: Int32 = -1
    /// The alignment `O_DIRECT` needs of memory, offset and length: at least the disks' logical block size.
    package static let directAlignment = 4096
    /// Whether aligned writes go past the page cache.
    package var writesDirect: Bool { directFD >= 0 }

    /// Sends block-aligned writes straight to the disk from now on, when the file system allows it.
    /// Call it before the first write, from the thread that owns the partial.
    package func enableDirectWrites() {
        guard directFD < 0 else { return }
        let direct = FileDescriptor.openDirect(in: root.partialDirectory.raw, partName, flags: O_WRONLY | O_NOFOLLOW | O_CLOEXEC)
        guard direct >= 0 else { return }  // EINVAL: no direct I/O on this file system
        // The name must still lead to the file `fd` holds: never write where another hand pointed it.
        if let named = try? FileDescriptor(direct).status(), let open = try? FileDescriptor(fd).status(),
           named.st_dev == open.st_dev, named.st_ino == open.st_ino {
            directFD = direct
        } else {
            close(direct)
        }
    }

    /// Writes `bytes` at `offset`: past the page cache when direct writes are on and memory and offset
    /// are aligned, all but an unaligned tail, which goes through the cache. Safe from several threads
    /// for ranges that do not overlap.
    package func write(_ bytes: UnsafeRawBufferPointer, at offset: Int64) throws(SystemError) {
        let alignment = Self.directAlignment
        var rest = bytes
        if directFD >= 0, offset % Int64(alignment) == 0, Int(bitPattern: bytes.baseAddress) % alignment == 0 {
            let aligned = bytes.count - bytes.count % alignment
            do {
                if aligned > 0 {
                    try FileDescriptor(directFD, path: displayPath).writeAll(UnsafeRawBufferPointer(rebasing: bytes[..<aligned]), at: offset)
                }
                rest = UnsafeRawBufferPointer(rebasing: bytes[aligned...])
            } catch where error.code == EINVAL {
                // A file system that opened the file for direct I/O but refuses this write: through the cache.
            }
        }
        guard !rest.isEmpty else { return }
        try FileDescriptor(fd, path: displayPath).writeAll(rest, at: offset + Int64(bytes.count - rest.count))
    }

    /// Saves the resume record (this entry, then the transfer layer's `fields`) under a fresh name
    /// renamed over the old one, without fsync: a record lost in a crash only costs a fresh start.
    package func saveResume(_ fields: [(key: String, value: String?)]) throws(SystemError) {
        try AtomicFile.replace(
            recordName, in: root.partialDirectory.raw, with: Array(Self.encodeResume(fields, for: entry).utf8), mode: 0o600, durable: false,
            display: root.partialDirectory.path)
        hasResumeRecord = true
    }

    /// Takes the file's first `length` bytes, put there by other means than `append` (a clone, an
    /// in-kernel copy), as written, with `crc` as their CRC-32 (and `sha256` as their SHA-256, when a
    /// record vouches for it): the caller proves those values.
    package func adopt(length: Int64, crc: UInt32, sha256: SHA256Digest? = nil) {
        offset = length
        writebackStart = length
        self.crc = CRC32(resumingFrom: crc)
        vouchedSHA256 = sha256
    }

    /// Removes the partial and its record for good, as after a final CRC mismatch.
    package func discard() {
        try? root.partialDirectory.removeFile(partName)
        try? root.partialDirectory.removeFile(recordName)
        forgetProgress()
    }

    /// Back to an empty file with no record: what `restart` and `discard` leave.
    private func forgetProgress() {
        offset = 0
        writebackStart = 0
        crc = CRC32()
        vouchedSHA256 = nil
        resumeFields = nil
        hasResumeRecord = false
        segments = []
    }

    /// Reserves blocks for the whole file before segments write at scattered offsets; only a hint.
    package func preallocate() {
        FileDescriptor(fd).preallocate(length: entry.size)
    }

    /// A segment over `range` holding its first `done` bytes already (see `PartialSegment`).
    package func segment(_ range: Range<Int64>, done: Int64, buffer: UnsafeMutableRawBufferPointer) throws(SystemError) -> PartialSegment {
        let segment = try PartialSegment(file: self, range: range, done: done, buffer: buffer)
        segments.append(segment)
        return segment
    }

    /// Takes the segments' bytes as the file's: the offset where they stop running on from zero
    /// without a gap, and their CRCs joined in file order (zlib's `crc32_combine`).
    package func joinSegments() {
        var joined = CRC32()
        var end: Int64 = 0
        for segment in segments.sorted(by: { $0.range.lowerBound < $1.range.lowerBound }) where segment.range.lowerBound == end {
            joined = CRC32(resumingFrom: CRC32.combine(joined.value, segment.crc.value, segment.offset - end))
            end = segment.offset
        }
        offset = end
        crc = joined
    }

    /// The CRC-32 of `length` bytes from `start`; nil when the file ends before them.
    func crc(from start: Int64, length: Int64, buffer: UnsafeMutableRawBufferPointer) throws(SystemError) -> UInt32? {
        var crc = CRC32()
        var position = start
        while position < start + length {
            let wanted = Int(min(Int64(buffer.count), start + length - position))
            let got = try FileDescriptor(fd, path: displayPath).read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<wanted]), at: position)
            if got == 0 { return nil }
            crc.update(UnsafeRawBufferPointer(rebasing: buffer[0..<got]))
            position += Int64(got)
        }
        return crc.value
    }

    static let resumeHeader = "assetsync-resume 1"
    /// The most bytes a resume record may have: a path, a URL, two validators and numbers fit many times over.
    static let resumeSizeLimit = 64 << 10

    /// A resume record's text: the entry's path, size and CRC-32 (its SHA-256 instead, for an entry
    /// that gives no CRC-32), then `fields`.
    static func encodeResume(_ fields: [(key: String, value: String?)], for entry: ManifestEntry) -> String {
        let checksum: (key: String, value: String?) = entry.crc32.map { ("crc32", CRC32Text.hex($0)) } ?? ("sha256", entry.sha256?.hex)
        return KeyValueRecord.encode([("path", entry.path), ("size", "\(entry.size)"), checksum] + fields, header: resumeHeader)
    }

    /// The fields of a resume record of `entry`; nil for anything torn, foreign or of another entry.
    static func decodeResume(_ text: String, for entry: ManifestEntry) -> [String: String]? {
        guard let fields = KeyValueRecord.decode(text, header: resumeHeader), fields["path"] == entry.path,
              fields["size"].flatMap({ Int64($0) }) == entry.size, fields["crc32"].flatMap({ UInt32($0, radix: 16) }) == entry.crc32,
              entry.crc32 != nil || fields["sha256"] == entry.sha256?.hex
        else { return nil }
        return fields
    }

    /// The resume record of the partial `name` if it is `entry`'s; nil when it is missing, torn, foreign or oversized.
    package static func resumeFields(root: CacheRoot, name: String, entry: ManifestEntry) -> [String: String]? {
        // A record that cannot be read only costs a fresh start.
        ((try? AtomicFile.read(name + ".resume", in: root.partialDirectory.raw, limit: resumeSizeLimit, display: name)) ?? nil)
            .flatMap { String(validating: $0, as: UTF8.self) }
            .flatMap { decodeResume($0, for: entry) }
    }

    /// The name of an entry's partial: a 64-bit FNV-1a of its path's canonical form, in hex, so that
    /// paths `String` calls equal (NFC and NFD spellings) have one partial name.
    package static func name(for path: String) -> String {
        HexDigits.padded(CanonicalPath.withBytes(of: path) { FNV1a.hash($0) }, width: 16)
    }

    /// Partial names from each path's hash, with a suffix in the unlikely event of a collision.
    package static func uniqueNames(_ paths: [String]) -> [String: String] {
        var names: [String: String] = [:]
        var taken = Set<String>()
        for path in paths {
            var name = PartialFile.name(for: path)
            var suffix = 1
            while !taken.insert(name).inserted {
                name = PartialFile.name(for: path) + "-\(suffix)"
                suffix += 1
            }
            names[path] = name
        }
        return names
    }
}
