/// What a scan of the cache found at one relative path, from `lstat`-like
/// metadata only: contents are never read.
public struct LocalItem: Equatable, Sendable {
    public enum Kind: String, Sendable {
        case regular, directory, symlink, other
    }

    public var kind: Kind
    public var size: Int64
    public var mtimeNanoseconds: Int64
    public var inode: UInt64

    public init(kind: Kind, size: Int64, mtimeNanoseconds: Int64 = 0, inode: UInt64 = 0) {
        self.kind = kind
        self.size = size
        self.mtimeNanoseconds = mtimeNanoseconds
        self.inode = inode
    }
}
