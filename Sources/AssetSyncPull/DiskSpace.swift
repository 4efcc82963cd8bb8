package import AssetSyncModel
import Glibc

/// The disk preflight: is there room for what is still to fetch?
package enum DiskSpace {
    /// Room kept beyond the bytes themselves, for metadata and whatever else writes meanwhile.
    package static func margin(for bytes: Int64) -> Int64 { bytes / 100 + (1 << 20) }

    /// Nil when `path`'s filesystem has room for `toFetch - alreadyHave` bytes and the margin
    /// (or when its free space cannot be read: the writes will then tell).
    package static func shortfall(in path: String, toFetch: Int64, alreadyHave: Int64) -> DiskShortfall? {
        let toDownload = max(0, toFetch - alreadyHave)
        guard toDownload > 0 else { return nil }
        var info = statvfs()
        guard statvfs(path, &info) == 0 else { return nil }
        let (bytes, overflow) = UInt64(info.f_bavail).multipliedReportingOverflow(by: UInt64(info.f_frsize))
        let free = overflow ? Int64.max : Int64(clamping: bytes)
        let shortfall = DiskShortfall(toDownload: toDownload, margin: margin(for: toDownload), free: free)
        return shortfall.needed <= free ? nil : shortfall
    }
}
