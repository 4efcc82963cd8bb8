import CCurl

/// What moves the engine's downloads along together: libcurl's multi handle (`CurlMultiplexer`),
/// two of them on two threads (`SplitMultiplexer`), or a scripted one in unit tests of the
/// engine's scheduling.
protocol TransferMultiplexer: AnyObject {
    func add(_ download: Download)
    func remove(_ download: Download)
    /// Moves every transfer on as far as it can go without waiting.
    func perform()
    /// Waits up to `timeout` milliseconds for activity on the transfers or on `wakeFD` (-1: none).
    func poll(wakeFD: Int32, timeout: Int32)
    /// The next finished download and its result; nil when none is left to read.
    func nextFinished() -> (download: Download, result: CURLcode)?
    /// Runs `body` while no other thread runs a download's callback: the engine reads and changes
    /// downloads, and their files' segments, only inside it (or in its own `perform`).
    func exclusive<T>(_ body: () -> T) -> T
}

extension TransferMultiplexer {
    /// One thread runs every callback: the engine's, in `perform`.
    func exclusive<T>(_ body: () -> T) -> T { body() }
}
