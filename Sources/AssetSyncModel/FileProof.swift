/// What a file was when it was proven to hold the checksums its entry gave (a CRC-32, a SHA-256
/// or both): the size, mtime and inode that let a later run call it current from `stat` alone.
package struct FileProof: Equatable, Sendable {
    package var size: Int64
    package var mtimeNanoseconds: Int64
    package var inode: UInt64
    /// The CRC-32's value; meaningful only while `hasCRC32`.
    private var crc32Value: UInt32
    /// Whether the file was proven to have `crc32Value`: a flag in the record's padding, no room taken.
    private var hasCRC32: Bool
    /// The CRC-32 the file was proven to have; nil when its entry gave only a SHA-256.
    package var crc32: UInt32? {
        get { hasCRC32 ? crc32Value : nil }
        set {
            crc32Value = newValue ?? 0
            hasCRC32 = newValue != nil
        }
    }
    /// The SHA-256 the file was proven to have; nil when its entry gave none.
    package var sha256: SHA256Digest? {
        get { sha256Bytes.map { $0.withUnsafeBytes { SHA256Digest(bytes: $0) } } }
        set { sha256Bytes = newValue?.bytes }
    }
    /// The SHA-256's bytes, out of line: a record is 40 bytes, not 72, in the million-entry columns
    /// of a run, whose records mostly have none.
    private var sha256Bytes: [UInt8]?

    package init(size: Int64, mtimeNanoseconds: Int64, inode: UInt64, crc32: UInt32?, sha256: SHA256Digest? = nil) {
        self.size = size
        self.mtimeNanoseconds = mtimeNanoseconds
        self.inode = inode
        self.crc32Value = crc32 ?? 0
        self.hasCRC32 = crc32 != nil
        self.sha256Bytes = sha256?.bytes
    }

    /// The record of a file seen by `stat` and proven to have `crc32` (and `sha256`).
    package init(_ item: LocalItem, crc32: UInt32?, sha256: SHA256Digest? = nil) {
        self.init(size: item.size, mtimeNanoseconds: item.mtimeNanoseconds, inode: item.inode, crc32: crc32, sha256: sha256)
    }

    /// Whether this record proves every checksum `entry` asks for: a record that proved only a
    /// SHA-256 proves no CRC-32 a later manifest gives, and one that proved only a CRC-32 no SHA-256.
    package func proves(_ entry: ManifestEntry) -> Bool {
        (entry.crc32 == nil || crc32 == entry.crc32) && (entry.sha256 == nil || sha256 == entry.sha256)
    }

    /// Whether `item` is still the file this record proved.
    package func describes(_ item: LocalItem) -> Bool {
        item.kind == .regular && item.size == size && item.mtimeNanoseconds == mtimeNanoseconds && item.inode == inode
    }
}
