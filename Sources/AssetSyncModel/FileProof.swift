/// What a file was when it was proven to hold its CRC-32 (and SHA-256, when its entry had one):
/// the size, mtime and inode that let a later run call it current from `stat` alone.
package struct FileProof: Equatable, Sendable {
    package var size: Int64
    package var mtimeNanoseconds: Int64
    package var inode: UInt64
    package var crc32: UInt32
    /// The SHA-256 the file was proven to have; nil when its entry gave none.
    package var sha256: SHA256Digest? {
        get { sha256Bytes.map { $0.withUnsafeBytes { SHA256Digest(bytes: $0) } } }
        set { sha256Bytes = newValue?.bytes }
    }
    /// The SHA-256's bytes, out of line: a record is 40 bytes, not 72, in the million-entry columns
    /// of a run, whose records mostly have none.
    private var sha256Bytes: [UInt8]?

    package init(size: Int64, mtimeNanoseconds: Int64, inode: UInt64, crc32: UInt32, sha256: SHA256Digest? = nil) {
        self.size = size
        self.mtimeNanoseconds = mtimeNanoseconds
        self.inode = inode
        self.crc32 = crc32
        self.sha256Bytes = sha256?.bytes
    }

    /// The record of a file seen by `stat` and proven to have `crc32` (and `sha256`).
    package init(_ item: LocalItem, crc32: UInt32, sha256: SHA256Digest? = nil) {
        self.init(size: item.size, mtimeNanoseconds: item.mtimeNanoseconds, inode: item.inode, crc32: crc32, sha256: sha256)
    }

    /// Whether this record proves the checksums `entry` asks for: its CRC-32, and its SHA-256 when it gives one.
    package func proves(_ entry: ManifestEntry) -> Bool {
        crc32 == entry.crc32 && (entry.sha256 == nil || sha256 == entry.sha256)
    }

    /// Whether `item` is still the file this record proved.
    package func describes(_ item: LocalItem) -> Bool {
        item.kind == .regular && item.size == size && item.mtimeNanoseconds == mtimeNanoseconds && item.inode == inode
    }
}
