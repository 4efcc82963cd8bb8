import CCurl

/// The engine's downloads on one libcurl multi handle, each found again by its easy handle.
final class CurlMultiplexer: TransferMultiplexer {
    private let multi = CurlMulti()
    private var downloads: [UnsafeMutableRawPointer: Download] = [:]

    /// - Parameter connections: the most connections open to one host.
    init(maximumHostConnections connections: Int) {
        multi.setMaximumHostConnections(connections)
        multi.disableMultiplexing()
    }

    func add(_ download: Download) {
        downloads[download.easy.handle] = download
        multi.add(download.easy)
    }

    func remove(_ download: Download) {
        multi.remove(download.easy)
        downloads[download.easy.handle] = nil
    }

    func perform() { multi.perform() }

    func poll(wakeFD: Int32, timeout: Int32) { multi.poll(wakeFD: wakeFD, timeout: timeout) }

    /// Waits up to `timeout` milliseconds for activity on the transfers or for any of `readable` to become readable.
    func poll(readable: [Int32], timeout: Int32) { multi.poll(readable: readable, timeout: timeout) }

    func nextFinished() -> (download: Download, result: CURLcode)? {
        while let (handle, code) = multi.nextFinished() {
            if let download = downloads[handle] { return (download, code) }
        }
        return nil
    }
}
