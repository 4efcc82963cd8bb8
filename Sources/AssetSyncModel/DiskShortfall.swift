/// Why a pull would not fit: the bytes it still has to download and the room kept beside them, against the free space.
package struct DiskShortfall: Equatable, Sendable {
    /// Bytes still to download: the files to fetch, less what their partials already hold.
    package var toDownload: Int64
    package var margin: Int64
    package var free: Int64

    package init(toDownload: Int64, margin: Int64, free: Int64) {
        self.toDownload = toDownload
        self.margin = margin
        self.free = free
    }

    /// At most `Int64.max`: no filesystem has that much free.
    package var needed: Int64 { toDownload.addingSaturated(margin) }
}
