package import AssetSyncModel
package import AssetSyncSystem
import Glibc

/// `DEST/.assetsync/state`: for each verified file, the size, mtime, inode and
/// CRC-32 it had when it was proven, so that a later run can call it current
/// from `stat` alone, without reading its contents.
///
/// The file is text, a line per record (`crc32 size mtime_ns inode path`, the first field
/// `crc32:sha256` for a file proven to have a SHA-256 too, `-:sha256` for one proven by its
/// SHA-256 alone: a record says what was proven, never more), and
/// ends with `end <count> <crc32 of everything before>`: a torn or corrupt
/// index fails that check and is treated as empty, which costs re-verification
/// and never a wrong answer. A record whose path breaks the manifest's path rules
/// (`../x`, `/x`, under `.assetsync/`) is dropped as it is read: no index, DEST's
/// or another cache's, can point outside its directory.
package struct StateIndex: Equatable, Sendable {
    package typealias Record = FileProof

    package static let header = "assetsync-state 1\n"

    /// One record and the path whose file it proves.
    package struct Entry: Equatable, Sendable {
        package var path: String
        package var record: Record

        package init(path: String, record: Record) {
            self.path = path
            self.record = record
        }
    }

    /// The records in `PathOrder`, one per path: the order `save` writes and lookups merge-join in.
    package private(set) var entries: [Entry]

    package init() { entries = [] }

    /// The index of `entries`, given in any order; of two records of one path (byte for byte), the later stays.
    package init(_ entries: [Entry]) {
        let order = PathOrder.sortedIndices(entries.count) { entries[$0].path }
        var sorted: [Entry] = []
        sorted.reserveCapacity(entries.count)
        for index in order {
            if let last = sorted.last, PathOrder.compare(last.path, entries[index].path) == 0 {
                sorted[sorted.count - 1] = entries[index]
            } else {
                sorted.append(entries[index])
            }
        }
        self.entries = sorted
    }

    package init(records: [String: Record]) { self.init(records.map { Entry(path: $0.key, record: $0.value) }) }

    /// The records by path, for code that wants one or two of them; a run looks records up with `proofs(for:)`.
    package var records: [String: Record] {
        get { Dictionary(entries.map { ($0.path, $0.record) }, uniquingKeysWith: { _, later in later }) }
        set { self = StateIndex(records: newValue) }
    }

    /// The record of each of `manifestEntries` (nil where the index has none), found by one merge-join
    /// of the index with the entries in `PathOrder` (`order`, when the caller has it already): no
    /// dictionary, no hashing.
    package func proofs(for manifestEntries: [ManifestEntry], inOrder order: [Int]? = nil) -> EntryColumn<Record> {
        if entries.isEmpty { return EntryColumn(count: manifestEntries.count) }
        return entries.withUnsafeBufferPointer { records in
            Self.merge(records, with: manifestEntries, inOrder: order) { _, _ in }
        }
    }

    /// `proofs(for:inOrder:)`, which also gives each record the manifest's copy of its path (the
    /// same bytes): a run then holds a million paths once, not twice (80 MB).
    package mutating func proofs(sharingPathsWith manifestEntries: [ManifestEntry], inOrder order: [Int]? = nil) -> EntryColumn<Record> {
        if entries.isEmpty { return EntryColumn(count: manifestEntries.count) }
        return entries.withUnsafeMutableBufferPointer { records in
            Self.merge(UnsafeBufferPointer(records), with: manifestEntries, inOrder: order) { record, entry in
                records[record].path = manifestEntries[entry].path
            }
        }
    }

    /// The merge-join of `records` (in `PathOrder`) with `manifestEntries`, calling `matched` with the
    /// positions of each record and entry of one path.
    private static func merge(
        _ records: UnsafeBufferPointer<Entry>, with manifestEntries: [ManifestEntry], inOrder order: [Int]?,
        matched: (_ record: Int, _ entry: Int) -> Void
    ) -> EntryColumn<Record> {
        // Filled as a plain array (made at the first match) and handed to the column whole: one
        // write per entry through the column's generic subscript cost more than the merge itself.
        var proofs: [Record?] = []
        manifestEntries.withUnsafeBufferPointer { manifest in
            var next = 0
            for index in order ?? PathOrder.sortedIndices(of: manifestEntries) {
                while next < records.count {
                    let comparison = PathOrder.compare(records[next].path, manifest[index].path)
                    if comparison > 0 { break }
                    next += 1
                    if comparison == 0 {
                        if proofs.isEmpty { proofs = Array(repeating: nil, count: manifest.count) }
                        proofs[index] = records[next - 1].record
                        matched(next - 1, index)
                        break
                    }
                }
                if next == records.count { break }
            }
        }
        return EntryColumn(count: manifestEntries.count, values: proofs)
    }

    /// The largest index a valid manifest can leave: each record line is at most twice as long as
    /// its entry's shortest form in a manifest (path, size and CRC), and manifests are bounded.
    /// A bigger file (such as a sparse one planted there) is torn, never read.
    package static let sizeLimit = 2 * Int(Manifest.sizeLimit) + 4096

    /// Loads the index in one pass; anything missing, torn or foreign gives an empty index.
    package static func load(from root: CacheRoot) -> StateIndex { ((try? committed(in: root)) ?? nil) ?? StateIndex() }

    /// The index of the cache directory at `path`, read without creating, locking or following
    /// anything (for `plan`): no `.assetsync/` directory gives an empty index.
    package static func load(cacheAt path: String) -> StateIndex {
        saved(inCache: .workingDirectory, metadataPath: path + "/" + CacheNames.metadata, display: path) ?? StateIndex()
    }

    /// The index of the cache directory open as `cache`, as `load(cacheAt:)` reads it, but nil when
    /// there is none (missing, torn, foreign or oversized).
    static func saved(inCache cache: DirectoryHandle, display: String) -> StateIndex? {
        saved(inCache: cache, metadataPath: CacheNames.metadata, display: display)
    }

    private static func saved(inCache cache: DirectoryHandle, metadataPath: String, display: String) -> StateIndex? {
        guard let metadata = try? cache.openDirectory(metadataPath) else { return nil }
        let read = withExtendedLifetime(metadata) {
            try? AtomicFile.read(CacheNames.state, in: metadata.raw, limit: sizeLimit, display: display + "/" + CacheNames.metadata + "/" + CacheNames.state)
        }
        return (read ?? nil).flatMap(decode)
    }

    /// The index the last completed run saved; nil when there is none or it is torn. Throws when it is
    /// there but cannot be read: whether DEST is managed (`--delete`) must not be guessed from that.
    package static func committed(in root: CacheRoot) throws(SystemError) -> StateIndex? {
        try AtomicFile.read(CacheNames.state, in: root.metadataDirectory.raw, limit: sizeLimit, display: path(in: root)).flatMap(decode)
    }

    static func path(in root: CacheRoot) -> String { root.path + "/" + CacheNames.metadata + "/" + CacheNames.state }

    /// Writes the index crash-safely: a fresh temporary file, fsync, rename over the old one, directory fsync.
    package func save(to root: CacheRoot) throws(SystemError) {
        try AtomicFile.replace(CacheNames.state, in: root.metadataDirectory.raw, stagingIn: root.partialDirectory.raw, with: encoded(), display: root.path + "/" + CacheNames.metadata)
    }

    package func encoded() -> [UInt8] {
        var out = Array(Self.header.utf8)
        out.reserveCapacity(entries.count * 64)
        for entry in entries {
            let record = entry.record
            out += (record.crc32.map(CRC32Text.hex) ?? "-").utf8
            if let sha256 = record.sha256 { out += ":\(sha256.hex)".utf8 }
            out += " \(record.size) \(record.mtimeNanoseconds) \(record.inode) ".utf8
            out += entry.path.utf8
            out.append(0x0A)
        }
        var crc = CRC32()
        out.withUnsafeBytes { crc.update($0) }
        out += "end \(entries.count) \(CRC32Text.hex(crc.value))\n".utf8
        return out
    }

    package static func decode(_ bytes: [UInt8]) -> StateIndex? {
        guard bytes.last == 0x0A, bytes.starts(with: header.utf8) else { return nil }
        let body = bytes.dropLast()
        guard let trailerStart = body.lastIndex(of: 0x0A).map({ $0 + 1 }) else { return nil }
        let trailer = String(decoding: bytes[trailerStart..<(bytes.count - 1)], as: UTF8.self).split(separator: " ")
        guard trailer.count == 3, trailer[0] == "end", let count = Int(trailer[1]), let expected = UInt32(trailer[2], radix: 16)
        else { return nil }
        var crc = CRC32()
        bytes.withUnsafeBytes { crc.update(UnsafeRawBufferPointer(rebasing: $0[0..<trailerStart])) }
        guard crc.value == expected else { return nil }
        var entries: [Entry] = []
        // The count is the file's word, not yet checked: reserve no more than its bytes can hold
        // (a record line is at least 10 bytes, `0 0 0 0 p` and its newline).
        entries.reserveCapacity(min(count, trailerStart / 10))
        var inOrder = true
        var lines = 0
        let parsed: Bool = bytes.withUnsafeBufferPointer { bytes in
            var lineStart = header.utf8.count
            while lineStart < trailerStart {
                guard let (entry, pathIsValid) = Self.record(in: bytes, from: &lineStart, to: trailerStart) else { return false }
                lines += 1
                // A path no manifest could give (`../x`, `/x`, `a//b`, `a/./b`, a control character, under
                // `.assetsync/`) names no file of this cache: the record is dropped, the rest of the index kept.
                guard pathIsValid else { continue }
                if inOrder, let last = entries.last, PathOrder.compare(last.path, entry.path) >= 0 { inOrder = false }
                entries.append(entry)
            }
            return true
        }
        guard parsed, lines == count else { return nil }
        if inOrder { return StateIndex(sorted: entries) }
        // Written by another tool: sorted here, and a path listed twice makes the file foreign.
        let index = StateIndex(entries)
        return index.entries.count == entries.count ? index : nil
    }

    /// The index of `entries` already in `PathOrder`, one per path.
    init(sorted: [Entry]) { entries = sorted }

    /// Parses the record line (`crc32[:sha256] size mtime_ns inode path`) that starts at `start`, and
    /// moves `start` past it, with whether its path keeps the manifest's path rules; nil for a malformed line.
    private static func record(
        in bytes: UnsafeBufferPointer<UInt8>, from start: inout Int, to end: Int
    ) -> (entry: Entry, pathIsValid: Bool)? {
        var offset = start
        guard let (crc32, sha256) = checksums(in: bytes, at: &offset),
              let size = number(in: bytes, at: &offset, radix: 10).flatMap({ Int64(exactly: $0) }),
              let mtime = signedNumber(in: bytes, at: &offset),
              let inode = number(in: bytes, at: &offset, radix: 10)
        else { return nil }
        var lineEnd = offset
        while lineEnd < end, bytes[lineEnd] != 0x0A { lineEnd += 1 }
        let pathBytes = UnsafeBufferPointer(rebasing: bytes[offset..<lineEnd])
        guard lineEnd < end, let path = String(validating: pathBytes, as: UTF8.self) else { return nil }
        start = lineEnd + 1
        let record = Record(size: size, mtimeNanoseconds: mtime, inode: inode, crc32: crc32, sha256: sha256)
        return (Entry(path: path, record: record), ManifestRules.isValidPath(pathBytes))
    }

    /// The digits at `offset` up to the next space, which `offset` moves past; nil when there are none,
    /// another byte comes first, or the value overflows.
    private static func number(in bytes: UnsafeBufferPointer<UInt8>, at offset: inout Int, radix: UInt64) -> UInt64? {
        var value: UInt64 = 0
        var index = offset
        while index < bytes.count, bytes[index] != 0x20 {
            let byte = bytes[index]
            let digit: UInt64
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt64(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f") where radix == 16: digit = UInt64(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F") where radix == 16: digit = UInt64(byte - UInt8(ascii: "A") + 10)
            default: return nil
            }
            let (shifted, overflow) = value.multipliedReportingOverflow(by: radix)
            let (sum, carry) = shifted.addingReportingOverflow(digit)
            guard !overflow, !carry else { return nil }
            value = sum
            index += 1
        }
        guard index > offset, index < bytes.count else { return nil }
        offset = index + 1
        return value
    }

    /// The first field at `offset`: 8 hex digits of CRC-32, or those, `:` and 64 hex digits of SHA-256,
    /// or `-:` and those 64 digits (no CRC-32 proven), then a space, which `offset` moves past; nil for
    /// anything else.
    private static func checksums(in bytes: UnsafeBufferPointer<UInt8>, at offset: inout Int) -> (UInt32?, SHA256Digest?)? {
        let crc32: UInt32?
        let crcEnd: Int
        if offset + 1 < bytes.count, bytes[offset] == UInt8(ascii: "-"), bytes[offset + 1] == UInt8(ascii: ":") {
            crc32 = nil
            crcEnd = offset + 1
        } else {
            crcEnd = offset + 8
            guard crcEnd < bytes.count, bytes[crcEnd] == 0x20 || bytes[crcEnd] == UInt8(ascii: ":"),
                  let plain = ManifestRules.plainCRC32(UnsafeBufferPointer(rebasing: bytes[offset..<crcEnd]))
            else { return nil }
            crc32 = plain
        }
        guard bytes[crcEnd] == UInt8(ascii: ":") else {
            offset = crcEnd + 1
            return (crc32, nil)
        }
        let shaEnd = crcEnd + 1 + 2 * SHA256Digest.byteCount
        guard shaEnd < bytes.count, bytes[shaEnd] == 0x20,
              let sha256 = SHA256Digest(hexDigits: UnsafeBufferPointer(rebasing: bytes[(crcEnd + 1)..<shaEnd]))
        else { return nil }
        offset = shaEnd + 1
        return (crc32, sha256)
    }

    /// A decimal `Int64` that may start with "-", as `number` reads it.
    private static func signedNumber(in bytes: UnsafeBufferPointer<UInt8>, at offset: inout Int) -> Int64? {
        guard offset < bytes.count, bytes[offset] == UInt8(ascii: "-") else {
            return number(in: bytes, at: &offset, radix: 10).flatMap { Int64(exactly: $0) }
        }
        var index = offset + 1
        guard let magnitude = number(in: bytes, at: &index, radix: 10), magnitude <= UInt64(Int64.max) + 1 else { return nil }
        offset = index
        return magnitude == UInt64(Int64.max) + 1 ? Int64.min : -Int64(magnitude)
    }
}
