/// What a scan of the cache found at one relative path, from `lstat`-like
/// metadata only: contents are never read.
package struct LocalItem: Equatable, Sendable {
    package enum Kind: String, Sendable {
        case regular, directory, symlink, other
    }

    package var kind: Kind
    package var size: Int64
    package var mtimeNanoseconds: Int64
    package var inode: UInt64

    package init(kind: Kind, size: Int64, mtimeNanoseconds: Int64 = 0, inode: UInt64 = 0) {
        self.kind = kind
        self.size = size
        self.mtimeNanoseconds = mtimeNanoseconds
        self.inode = inode
    }
}
