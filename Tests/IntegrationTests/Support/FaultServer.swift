import Foundation
import Glibc
import Synchronization
import TestSupport

/// A small HTTP/1.1 server on loopback for hostile-server tests: each path answers with a
/// `FaultBehavior`, every request is recorded, and `stop()` (or release) closes the listener and
/// every connection and joins every thread. One thread accepts; each connection has its own.
///
///     let server = try FaultServer()
///     defer { server.stop() }
///     server.route("/a.bin", .serve(.pattern(size: 1 << 20)).truncated(after: 4096))
///     // fetch server.url("a.bin") …
///     #expect(server.requests(to: "/a.bin").first?.range == nil)
///
/// Behaviours run on connection threads. One that captures the server itself makes a cycle;
/// call `stop()` (tests should anyway, in a `defer`).
final class FaultServer: Sendable {
    /// The address listened on (`127.0.0.1`).
    let host: String
    let port: UInt16
    private let core: Core

    /// Listens on `host` with a port the kernel picks, and starts accepting.
    init(host: String = "127.0.0.1", routes: [String: FaultBehavior] = [:]) throws {
        let (fd, port) = try LoopbackSocket.listen(host: host, port: 0)
        let wake: (read: Int32, write: Int32)
        do { wake = try LoopbackSocket.pipe() } catch { close(fd); throw error }
        self.host = host
        self.port = port
        core = Core(listenFD: fd, wake: wake)
        for (path, behavior) in routes { route(path, behavior) }
        try core.start()
    }

    deinit { core.stop() }

    /// `http://127.0.0.1:PORT/`
    var baseURL: String { "http://\(host):\(port)/" }

    /// The URL of `path` on this server, optionally through another name (`localhost`) for
    /// cross-host tests.
    func url(_ path: String, host: String? = nil) -> String {
        "http://\(host ?? self.host):\(port)/" + (path.hasPrefix("/") ? String(path.dropFirst()) : path)
    }

    /// Answers requests for `path` (without query; a missing leading `/` is added) with `behavior`.
    func route(_ path: String, _ behavior: FaultBehavior) {
        let key = Self.key(path)
        core.state.withLock { $0.routes[key] = behavior }
    }

    func removeRoute(_ path: String) {
        let key = Self.key(path)
        core.state.withLock { _ = $0.routes.removeValue(forKey: key) }
    }

    /// The behaviour for paths without a route (404 unless set).
    func setFallback(_ behavior: FaultBehavior) { core.state.withLock { $0.fallback = behavior } }

    /// Every request so far, in arrival order, with the response's status and bytes once known.
    var requests: [FaultRequest] { core.state.withLock { $0.requests } }

    func requests(to path: String) -> [FaultRequest] {
        let key = Self.key(path)
        return requests.filter { $0.path == key }
    }

    /// Waits until `count` requests (to `path`, if given) have arrived, answered or not; returns
    /// them, or what there is after `timeout` seconds.
    @discardableResult
    func waitForRequests(_ count: Int, to path: String? = nil, timeout: Double = 10) -> [FaultRequest] {
        _ = waitUntil(timeout: timeout) { (path.map { requests(to: $0) } ?? requests).count >= count }
        return path.map { requests(to: $0) } ?? requests
    }

    /// Waits until `count` requests (to `path`, if given) have arrived and their responses have
    /// ended (written, cut or failed); returns them, or what there is after `timeout` seconds.
    @discardableResult
    func waitForResponses(_ count: Int, to path: String? = nil, timeout: Double = 10) -> [FaultRequest] {
        _ = waitUntil(timeout: timeout) {
            let matching = path.map { requests(to: $0) } ?? requests
            return matching.count >= count && matching.prefix(count).allSatisfy { $0.responseEnded }
        }
        return path.map { requests(to: $0) } ?? requests
    }

    /// Connections accepted and not yet closed.
    var openConnections: Int { core.state.withLock { $0.openConnections } }

    /// Connections accepted so far.
    var acceptedConnections: Int { core.state.withLock { $0.nextConnectionID - 1 } }

    /// Stops accepting, ends every connection (in-flight stalls and slow writes included), joins
    /// every thread and closes the listener. Idempotent; the records stay readable.
    func stop() { core.stop() }

    private static func key(_ path: String) -> String {
        let path = FaultRequest.splitTarget(path).path
        return path.hasPrefix("/") ? path : "/" + path
    }

    /// State shared by the accept thread and the connection threads; outlives the handle until
    /// they are joined.
    final class Core: Sendable {
        struct State {
            var routes: [String: FaultBehavior] = [:]
            var fallback: FaultBehavior = .notFound
            var requests: [FaultRequest] = []
            var attempts: [String: Int] = [:]
            var stopping = false
            var stopped = false
            var acceptThread: pthread_t?
            var connectionThreads: [Int: pthread_t] = [:]
            var finished: Set<Int> = []
            var openConnections = 0
            var nextConnectionID = 1
        }

        let listenFD: Int32
        let wake: (read: Int32, write: Int32)
        let state = Mutex(State())
        /// Seconds a connection waits for its next request before closing.
        let idleTimeout = 60.0

        init(listenFD: Int32, wake: (read: Int32, write: Int32)) {
            self.listenFD = listenFD
            self.wake = wake
        }

        func start() throws {
            let thread = try Self.startThread { [self] in acceptLoop() }
            state.withLock { $0.acceptThread = thread }
        }

        func stop() {
            let acceptThread: pthread_t?? = state.withLock { state in
                guard !state.stopping else { return nil }
                state.stopping = true
                return .some(state.acceptThread)
            }
            guard let acceptThread else { return }  // already stopped (or stopping elsewhere)
            // The byte is never read: the pipe stays readable and wakes every poll from now on.
            var byte: UInt8 = 1
            _ = write(wake.write, &byte, 1)
            if let acceptThread { join(acceptThread) }
            let threads = state.withLock { state in
                defer { state.connectionThreads = [:] }
                return Array(state.connectionThreads.values)
            }
            for thread in threads { join(thread) }
            close(listenFD)
            close(wake.read)
            close(wake.write)
            state.withLock { $0.stopped = true }
        }

        /// Whether `stop()` has begun.
        var stopping: Bool { state.withLock { $0.stopping } }

        private func join(_ thread: pthread_t) {
            if pthread_equal(thread, pthread_self()) != 0 { pthread_detach(thread); return }
            pthread_join(thread, nil)
        }

        private func acceptLoop() {
            while true {
                var fds = [pollfd(fd: listenFD, events: Int16(POLLIN), revents: 0),
                           pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0)]
                let ready = poll(&fds, 2, -1)
                if ready < 0 && errno == EINTR { continue }
                if ready < 0 || fds[1].revents != 0 || stopping { return }
                reapFinished()
                while true {
                    // nil: drained (EAGAIN), or an error to retry at the next poll.
                    guard let fd = LoopbackSocket.accept(listenFD) else { break }
                    let id: Int? = state.withLock { state in
                        guard !state.stopping else { return nil }
                        defer { state.nextConnectionID += 1 }
                        state.openConnections += 1
                        return state.nextConnectionID
                    }
                    guard let id else { close(fd); return }
                    LoopbackSocket.setNoDelay(fd)
                    do {
                        let thread = try Self.startThread { [self] in
                            FaultConnection(fd: fd, id: id, core: self).run()
                            state.withLock { state in
                                state.finished.insert(id)
                                state.openConnections -= 1
                            }
                        }
                        state.withLock { $0.connectionThreads[id] = thread }
                    } catch {
                        close(fd)
                        state.withLock { $0.openConnections -= 1 }
                    }
                }
            }
        }

        /// Joins connection threads that have ended, so that a long test does not accumulate them.
        private func reapFinished() {
            let done = state.withLock { state -> [pthread_t] in
                let ids = state.finished.filter { state.connectionThreads[$0] != nil }
                state.finished.subtract(ids)
                return ids.compactMap { state.connectionThreads.removeValue(forKey: $0) }
            }
            for thread in done { pthread_join(thread, nil) }
        }

        /// Records a parsed request and picks its behaviour; returns the record's index.
        func record(_ request: inout FaultRequest) -> (index: Int, behavior: FaultBehavior) {
            state.withLock { state in
                let attempt = (state.attempts[request.path] ?? 0) + 1
                state.attempts[request.path] = attempt
                request.attempt = attempt
                state.requests.append(request)
                return (state.requests.count - 1, state.routes[request.path] ?? state.fallback)
            }
        }

        func update(_ index: Int, _ change: (inout FaultRequest) -> Void) {
            state.withLock { change(&$0.requests[index]) }
        }

        private final class ThreadBody {
            let run: @Sendable () -> Void
            init(_ run: @escaping @Sendable () -> Void) { self.run = run }
        }

        private static func startThread(_ body: @escaping @Sendable () -> Void) throws -> pthread_t {
            let context = Unmanaged.passRetained(ThreadBody(body)).toOpaque()
            var thread = pthread_t()
            let rc = pthread_create(&thread, nil, { context in
                Unmanaged<ThreadBody>.fromOpaque(context!).takeRetainedValue().run()
                return nil
            }, context)
            guard rc == 0 else {
                Unmanaged<ThreadBody>.fromOpaque(context).release()
                throw LoopbackSocket.Failure(call: "pthread_create", code: rc)
            }
            return thread
        }
    }
}
