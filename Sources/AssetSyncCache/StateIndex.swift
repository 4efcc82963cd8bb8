public import AssetSyncModel
public import AssetSyncSystem
import Glibc

/// `DEST/.assetsync/state`: for each verified file, the size, mtime, inode and
/// CRC-32 it had when it was proven, so that a later run can call it current
/// from `stat` alone, without reading its contents.
///
/// The file is text, a line per record (`crc32 size mtime_ns inode path`), and
/// ends with `end <count> <crc32 of everything before>`: a torn or corrupt
/// index fails that check and is treated as empty, which costs re-verification
/// and never a wrong answer.
public struct StateIndex: Equatable, Sendable {
    public typealias Record = FileProof

    static let fileName = "state"
    package static let header = "assetsync-state 1\n"

    public var records: [String: Record]

    public init(records: [String: Record] = [:]) { self.records = records }

    /// The largest index a valid manifest can leave: each record line is at most twice as long as
    /// its entry's shortest form in a manifest (path, size and CRC), and manifests are bounded.
    /// A bigger file (such as a sparse one planted there) is torn, never read.
    package static let sizeLimit = 2 * Int(Manifest.sizeLimit) + 4096

    /// Loads the index in one pass; anything missing, torn or foreign gives an empty index.
    public static func load(from root: CacheRoot) -> StateIndex { committed(in: root) ?? StateIndex() }

    /// The index of the cache directory at `path`, read without creating, locking or following
    /// anything (for `plan`): no `.assetsync/` directory gives an empty index.
    public static func load(cacheAt path: String) -> StateIndex {
        let metadata = open(path + "/" + CacheRoot.metadataName, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard metadata >= 0 else { return StateIndex() }
        defer { close(metadata) }
        return committed(metadataFD: metadata) ?? StateIndex()
    }

    /// The index a run committed, or nil when there is none: missing, torn, foreign or oversized.
    /// Only a run that got as far as saving it leaves one, so it also says DEST is managed.
    public static func committed(in root: CacheRoot) -> StateIndex? { committed(metadataFD: root.metadataFD) }

    private static func committed(metadataFD: Int32) -> StateIndex? {
        AtomicFile.read(fileName, in: metadataFD, limit: sizeLimit).flatMap(decode)
    }

    /// Writes the index crash-safely: a fresh temporary file, fsync, rename over the old one, directory fsync.
    public func save(to root: CacheRoot) throws(SystemError) {
        try AtomicFile.replace(Self.fileName, in: root.metadataFD, with: encoded(), display: root.path + "/" + CacheRoot.metadataName)
    }

    package func encoded() -> [UInt8] {
        var out = Array(Self.header.utf8)
        out.reserveCapacity(records.count * 64)
        for path in records.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) {
            let record = records[path]!
            out += "\(CRC32Text.hex(record.crc32)) \(record.size) \(record.mtimeNanoseconds) \(record.inode) ".utf8
            out += path.utf8
            out.append(0x0A)
        }
        var crc = CRC32()
        out.withUnsafeBytes { crc.update($0) }
        out += "end \(records.count) \(CRC32Text.hex(crc.value))\n".utf8
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
        var records: [String: Record] = [:]
        records.reserveCapacity(count)
        var lineStart = header.utf8.count
        while lineStart < trailerStart {
            guard let lineEnd = bytes[lineStart..<trailerStart].firstIndex(of: 0x0A) else { return nil }
            let fields = bytes[lineStart..<lineEnd].split(separator: 0x20, maxSplits: 4, omittingEmptySubsequences: false)
            guard fields.count == 5,
                  let crc32 = UInt32(String(decoding: fields[0], as: UTF8.self), radix: 16),
                  let size = Int64(String(decoding: fields[1], as: UTF8.self)),
                  let mtime = Int64(String(decoding: fields[2], as: UTF8.self)),
                  let inode = UInt64(String(decoding: fields[3], as: UTF8.self)),
                  let path = String(validating: fields[4], as: UTF8.self)
            else { return nil }
            records[path] = Record(size: size, mtimeNanoseconds: mtime, inode: inode, crc32: crc32)
            lineStart = lineEnd + 1
        }
        guard records.count == count else { return nil }
        return StateIndex(records: records)
    }
}
