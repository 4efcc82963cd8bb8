/// What a file was when it was proven to hold its CRC-32: the size, mtime and inode
/// that let a later run call it current from `stat` alone.
public struct FileProof: Equatable, Sendable {
    public var size: Int64
    public var mtimeNanoseconds: Int64
    public var inode: UInt64
    public var crc32: UInt32

    public init(size: Int64, mtimeNanoseconds: Int64, inode: UInt64, crc32: UInt32) {
        self.size = size
        self.mtimeNanoseconds = mtimeNanoseconds
        self.inode = inode
        self.crc32 = crc32
    }

    /// The record of a file seen by `stat` and proven to have `crc32`.
    package init(_ item: LocalItem, crc32: UInt32) {
        self.init(size: item.size, mtimeNanoseconds: item.mtimeNanoseconds, inode: item.inode, crc32: crc32)
    }

    /// Whether `item` is still the file this record proved.
    public func describes(_ item: LocalItem) -> Bool {
        item.kind == .regular && item.size == size && item.mtimeNanoseconds == mtimeNanoseconds && item.inode == inode
    }
}
