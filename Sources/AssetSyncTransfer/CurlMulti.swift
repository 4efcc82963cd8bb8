import CCurl
import CCurlShim

/// Owns one libcurl multi handle; every call's `CURLMcode` is checked. A failing multi call
/// means a handle misused or memory exhausted, a programming or process error rather than a
/// network condition, so it stops the process with libcurl's words. Not `Sendable`: it belongs
/// to the thread that made it.
final class CurlMulti {
    private let handle: UnsafeMutableRawPointer

    init() {
        guard let handle = curl_multi_init() else { fatalError("curl_multi_init failed: out of memory") }
        self.handle = handle
    }

    deinit { check(curl_multi_cleanup(handle), "curl_multi_cleanup") }

    func setMaximumHostConnections(_ count: Int) {
        check(asc_multi_setopt_long(handle, CURLMOPT_MAX_HOST_CONNECTIONS, count), "curl_multi_setopt")
    }

    /// One transfer per connection: libcurl 7.88 left a multiplexed HTTP/2 stream's buffered data
    /// unread until the next socket event, so 5,000 small files over h2 sat in 1-second poll timeouts.
    func disableMultiplexing() {
        check(asc_multi_setopt_long(handle, CURLMOPT_PIPELINING, Int(CURLPIPE_NOTHING)), "curl_multi_setopt")
    }

    func add(_ easy: CurlEasy) { check(curl_multi_add_handle(handle, easy.handle), "curl_multi_add_handle") }

    func remove(_ easy: CurlEasy) { check(curl_multi_remove_handle(handle, easy.handle), "curl_multi_remove_handle") }

    /// Moves every transfer on as far as it can go without waiting.
    func perform() {
        var running: Int32 = 0
        check(curl_multi_perform(handle, &running), "curl_multi_perform")
    }

    /// Waits up to `timeout` milliseconds for activity on the transfers, on `wakeFD` (-1: none),
    /// or for `wakeup()`.
    func poll(wakeFD: Int32, timeout: Int32) {
        poll(readable: wakeFD >= 0 ? [wakeFD] : [], timeout: timeout)
    }

    /// Waits up to `timeout` milliseconds for activity on the transfers, for any of `readable` to
    /// become readable, or for `wakeup()`.
    func poll(readable: [Int32], timeout: Int32) {
        var waits = readable.map { curl_waitfd(fd: $0, events: Int16(CURL_WAIT_POLLIN), revents: 0) }
        check(waits.withUnsafeMutableBufferPointer { curl_multi_poll(handle, $0.baseAddress, UInt32($0.count), timeout, nil) }, "curl_multi_poll")
    }

    /// Ends a `poll` under way on another thread, or the next one: the one call libcurl allows on
    /// a multi handle from any thread.
    func wakeup() { check(curl_multi_wakeup(handle), "curl_multi_wakeup") }

    /// The next finished transfer: its easy handle and result; nil when none is left to read.
    func nextFinished() -> (easy: UnsafeMutableRawPointer, result: CURLcode)? {
        var left: Int32 = 0
        while let message = curl_multi_info_read(handle, &left) {
            if message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle { return (easy, message.pointee.data.result) }
        }
        return nil
    }

    private func check(_ code: CURLMcode, _ call: String) {
        precondition(code == CURLM_OK, "\(call): \(String(cString: curl_multi_strerror(code)))")
    }
}
