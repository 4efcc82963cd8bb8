package import AssetSyncModel
package import Glibc

extension LocalItem {
    /// The item an `lstat`/`fstat` result describes.
    package init(_ status: stat) {
        let kind: Kind
        switch status.st_mode & S_IFMT {
        case S_IFREG: kind = .regular
        case S_IFDIR: kind = .directory
        case S_IFLNK: kind = .symlink
        default: kind = .other
        }
        self.init(
            kind: kind, size: Int64(status.st_size),
            mtimeNanoseconds: Int64(status.st_mtim.tv_sec) * 1_000_000_000 + Int64(status.st_mtim.tv_nsec),
            inode: UInt64(status.st_ino))
    }
}
