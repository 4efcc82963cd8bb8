import Glibc

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

    init(_ status: stat) {
        switch status.st_mode & S_IFMT {
        case S_IFREG: kind = .regular
        case S_IFDIR: kind = .directory
        case S_IFLNK: kind = .symlink
        default: kind = .other
        }
        size = Int64(status.st_size)
        mtimeNanoseconds = Int64(status.st_mtim.tv_sec) * 1_000_000_000 + Int64(status.st_mtim.tv_nsec)
        inode = UInt64(status.st_ino)
    }
}
