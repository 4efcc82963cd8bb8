import Foundation
import Glibc

/// Every syscall the test servers make on sockets, in one place: `EINTR` retried, errno turned
/// into `Failure`, every descriptor close-on-exec (so a spawned nginx or curl never inherits
/// a connection and keeps it open after the server closed it).
enum LoopbackSocket {
    /// A failed call: which one, and errno.
    struct Failure: Error, CustomStringConvertible {
        var call: String
        var code: Int32

        var description: String { "\(call): \(String(cString: strerror(code))) (errno \(code))" }
    }

    /// Retries `body` while it fails with `EINTR`; throws `Failure` for any other failure.
    @discardableResult
    static func call<T: FixedWidthInteger>(_ name: String, _ body: () -> T) throws(Failure) -> T {
        while true {
            let result = body()
            if result >= 0 { return result }
            if errno != EINTR { throw Failure(call: name, code: errno) }
        }
    }

    private static let streamFlags = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)

    /// A listening TCP socket on `host:port` (port 0: the kernel picks one), non-blocking.
    static func listen(
        host: String = "127.0.0.1", port: UInt16 = 0, backlog: Int32 = 128
    ) throws(Failure) -> (fd: Int32, port: UInt16) {
        let fd = try call("socket") { socket(AF_INET, streamFlags | Int32(SOCK_NONBLOCK.rawValue), 0) }
        do {
            var yes: Int32 = 1
            try call("setsockopt(SO_REUSEADDR)") {
                setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
            }
            var address = try inetAddress(host: host, port: port)
            try call("bind(\(host):\(port))") {
                withUnsafePointer(to: &address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
                }
            }
            try call("listen") { Glibc.listen(fd, backlog) }
            return (fd, try localPort(fd))
        } catch {
            close(fd)
            throw error
        }
    }

    /// The port a bound socket got.
    static func localPort(_ fd: Int32) throws(Failure) -> UInt16 {
        var bound = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        try call("getsockname") {
            withUnsafeMutablePointer(to: &bound) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
            }
        }
        return UInt16(bigEndian: bound.sin_port)
    }

    /// A port that was free a moment ago: bound on `host` with port 0, then released.
    static func freePort(host: String = "127.0.0.1") throws(Failure) -> UInt16 {
        let (fd, port) = try listen(host: host, port: 0, backlog: 1)
        close(fd)
        return port
    }

    /// Whether a TCP connection to `host:port` succeeds within `timeout` seconds.
    static func canConnect(host: String = "127.0.0.1", port: UInt16, timeout: Double = 1) -> Bool {
        guard let fd = try? call("socket", { socket(AF_INET, streamFlags | Int32(SOCK_NONBLOCK.rawValue), 0) }) else { return false }
        defer { close(fd) }
        guard var address = try? inetAddress(host: host, port: port) else { return false }
        let rc = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        if rc == 0 { return true }
        guard errno == EINPROGRESS else { return false }
        var entry = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
        guard poll(&entry, 1, Int32(timeout * 1000)) == 1 else { return false }
        var error: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length) == 0 else { return false }
        return error == 0
    }

    /// A connected, blocking TCP socket to `host:port`, for tests that speak raw HTTP.
    static func connect(host: String = "127.0.0.1", port: UInt16) throws(Failure) -> Int32 {
        let fd = try call("socket") { socket(AF_INET, streamFlags, 0) }
        do {
            var address = try inetAddress(host: host, port: port)
            try call("connect(\(host):\(port))") {
                withUnsafePointer(to: &address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                        Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                    }
                }
            }
            return fd
        } catch {
            close(fd)
            throw error
        }
    }

    /// A pipe whose both ends are close-on-exec and non-blocking.
    static func pipe() throws(Failure) -> (read: Int32, write: Int32) {
        var fds: [Int32] = [0, 0]
        try call("pipe") { Glibc.pipe(&fds) }
        for fd in fds { configure(fd) }
        return (fds[0], fds[1])
    }

    /// Accepts one pending connection, close-on-exec and non-blocking; nil when none is pending.
    /// (`accept4` and `pipe2` are not visible to Swift without `_GNU_SOURCE`.)
    static func accept(_ listener: Int32) -> Int32? {
        while true {
            let fd = Glibc.accept(listener, nil, nil)
            if fd >= 0 {
                configure(fd)
                return fd
            }
            if errno != EINTR { return nil }
        }
    }

    /// Sets close-on-exec and non-blocking.
    private static func configure(_ fd: Int32) {
        _ = fcntl(fd, F_SETFD, fcntl(fd, F_GETFD) | FD_CLOEXEC)
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
    }

    /// Closes `fd` so that the peer sees a reset (RST) rather than an orderly end (FIN).
    static func closeWithReset(_ fd: Int32) {
        var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
        _ = setsockopt(fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
        close(fd)
    }

    static func setNoDelay(_ fd: Int32) {
        var yes: Int32 = 1
        _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &yes, socklen_t(MemoryLayout<Int32>.size))
    }

    private static func inetAddress(host: String, port: UInt16) throws(Failure) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else { throw Failure(call: "inet_pton(\(host))", code: EINVAL) }
        return address
    }
}
