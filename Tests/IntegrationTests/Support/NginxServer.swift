import Foundation
import Glibc
import Synchronization
import TestSupport

/// A real nginx (Debian's `/usr/sbin/nginx`) serving `root` on `127.0.0.1` with a port, config,
/// logs and temp dirs of its own; stopped by `stop()` or on release, workers included.
///
///     let nginx = try NginxServer(root: files.url)
///     defer { nginx.stop() }
///     // fetch nginx.url("videos/intro.mp4") …
///     let log = nginx.waitForAccessLog(count: 1)
///     #expect(log[0].range == "bytes=100-")
final class NginxServer: Sendable {
    struct StartError: Error, CustomStringConvertible {
        var description: String
    }

    /// The served directory.
    let root: URL
    let port: UInt16
    /// nginx's own directory: `nginx.conf`, `logs/`, `temp/`, `stderr`.
    let directory: URL
    /// The master's process id; workers are its children.
    let pid: Int32

    private let process: Mutex<Process?>

    /// `http://127.0.0.1:PORT/`
    var baseURL: String { "http://127.0.0.1:\(port)/" }

    /// The URL of `path` (relative to `root`, already percent-encoded as needed).
    func url(_ path: String, host: String = "127.0.0.1") -> String {
        "http://\(host):\(port)/" + (path.hasPrefix("/") ? String(path.dropFirst()) : path)
    }

    /// A `location /slow/` serving `root` at 4 MiB/s, for a transfer a test can interrupt midway.
    static func slowLocation(serving root: URL) -> String {
        "location /slow/ { alias \(root.path)/; limit_rate 4m; }"
    }

    var accessLogURL: URL { directory.appendingPathComponent("logs/access.log") }
    var errorLogURL: URL { directory.appendingPathComponent("logs/error.log") }

    /// Starts nginx and returns once it accepts connections.
    /// - Parameters:
    ///   - extraConfig: directives inserted at the end of the `server { }` block (e.g. a `location`).
    ///   - httpConfig: directives inserted in the `http { }` block (e.g. a second `server`).
    ///   - workers: worker processes, 1 or 2.
    ///   - startTimeout: seconds to wait for nginx to accept connections.
    init(root: URL, extraConfig: String = "", httpConfig: String = "", workers: Int = 1, startTimeout: Double = 20) throws {
        self.root = root.standardizedFileURL
        var template = Array((NSTemporaryDirectory() + "/assetsync-nginx-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { throw StartError(description: "mkdtemp: \(String(cString: strerror(errno)))") }
        let directory = URL(fileURLWithPath: String(cString: made)).standardizedFileURL
        self.directory = directory
        let manager = FileManager.default
        do {
            for sub in ["logs", "temp/client_body", "temp/proxy", "temp/fastcgi", "temp/uwsgi", "temp/scgi"] {
                try manager.createDirectory(at: directory.appendingPathComponent(sub), withIntermediateDirectories: true)
            }
            var lastFailure = ""
            for _ in 0..<5 {
                let port = try LoopbackSocket.freePort()
                let config = Self.config(
                    directory: directory, root: self.root, port: port, workers: max(1, min(workers, 2)),
                    extraConfig: extraConfig, httpConfig: httpConfig)
                try Data(config.utf8).write(to: directory.appendingPathComponent("nginx.conf"))
                let started = try Self.launch(directory: directory)
                let workers = max(1, min(workers, 2))
                switch Self.waitUntilReady(started, directory: directory, port: port, workers: workers, timeout: startTimeout) {
                case .ready:
                    self.port = port
                    self.pid = started.processIdentifier
                    self.process = Mutex(started)
                    return
                case .failed(let log) where log.contains("Address already in use"):
                    lastFailure = log
                    continue
                case .failed(let log):
                    throw StartError(description: "nginx did not start:\n\(log)")
                case .timedOut(let log):
                    Self.terminate(started, graceSeconds: 2)
                    throw StartError(description: "nginx did not accept connections within \(startTimeout) s:\n\(log)")
                }
            }
            throw StartError(description: "nginx found no free port in 5 tries:\n\(lastFailure)")
        } catch {
            try? manager.removeItem(at: directory)
            throw error
        }
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(at: directory)
    }

    /// Stops nginx (fast shutdown, then SIGKILL to master and workers after 5 s) and waits for it.
    /// Idempotent; the logs stay readable until the server is released.
    func stop() {
        let running = process.withLock { process -> Process? in
            defer { process = nil }
            return process
        }
        if let running { Self.terminate(running, graceSeconds: 5) }
    }

    /// Whether the master is still running.
    var isRunning: Bool { process.withLock { $0?.isRunning ?? false } }

    /// The access log so far, one entry per finished request (nginx writes a line when the
    /// response is done, so a client may see the last byte a moment before its line exists:
    /// use `waitForAccessLog(count:)` right after a transfer).
    func accessLog() -> [AccessLogLine] { loggedRequests().filter { $0.path != Self.markerPath } }

    /// Every line of the access log, markers included.
    private func loggedRequests() -> [AccessLogLine] {
        guard let text = try? String(contentsOf: accessLogURL, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { AccessLogLine(json: String($0)) }
    }

    /// Answered with 204 and left out of `accessLog()`: the test's own request that marks a point in the log.
    private static let markerPath = "/.assetsync-test-marker"

    /// The access log once every request nginx finished before this call is in it, for a test that
    /// checks what was not asked: a marker request is made and its line awaited (a worker logs in
    /// the order it finishes requests, so this holds with one worker).
    func settledAccessLog(timeout: Double = 10) -> [AccessLogLine] {
        let marker = Self.markerPath + "?" + UUID().uuidString
        if let fd = try? LoopbackSocket.connect(port: port) {
            defer { close(fd) }
            let request = "GET \(marker) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
            _ = request.withCString { send(fd, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
            var buffer = [UInt8](repeating: 0, count: 1024)
            while recv(fd, &buffer, buffer.count, 0) > 0 {}
        }
        _ = waitUntil(timeout: timeout) { loggedRequests().contains { $0.uri == marker } }
        return accessLog()
    }

    /// The access log once it holds at least `count` lines, or as it is after `timeout` seconds.
    func waitForAccessLog(count: Int, timeout: Double = 10) -> [AccessLogLine] {
        _ = waitUntil(timeout: timeout) { accessLog().count >= count }
        return accessLog()
    }

    /// The error log's text (level `info`: also client aborts and resets).
    func errorLog() -> String {
        (try? String(contentsOf: errorLogURL, encoding: .utf8)) ?? ""
    }

    /// Empties the access log (nginx keeps appending to the same file).
    func clearAccessLog() {
        truncate(accessLogURL.path, 0)
    }

    /// The process ids of the master's children (the workers), from `/proc`.
    func workerPIDs() -> [Int32] { Self.children(of: pid) }

    // MARK: - Private

    private enum Readiness { case ready, failed(String), timedOut(String) }

    private static func config(
        directory: URL, root: URL, port: UInt16, workers: Int, extraConfig: String, httpConfig: String
    ) -> String {
        let dir = directory.path
        // As root, workers would otherwise run as `nobody` and get 403 in a 0700 temp dir.
        let user = getuid() == 0 ? "user root;\n" : ""
        return """
            \(user)worker_processes \(workers);
            daemon off;
            master_process on;
            pid "\(dir)/nginx.pid";
            error_log "\(dir)/logs/error.log" info;
            events { worker_connections 1024; }
            http {
                default_type application/octet-stream;
                types { text/plain txt; application/json json; application/xml xml; }
                sendfile on;
                tcp_nopush on;
                tcp_nodelay on;
                keepalive_timeout 65;
                keepalive_requests 100000;
                server_tokens off;
                client_body_temp_path "\(dir)/temp/client_body";
                proxy_temp_path "\(dir)/temp/proxy";
                fastcgi_temp_path "\(dir)/temp/fastcgi";
                uwsgi_temp_path "\(dir)/temp/uwsgi";
                scgi_temp_path "\(dir)/temp/scgi";
                log_format harness escape=json '{"request":"$request","method":"$request_method",'
                    '"uri":"$request_uri","status":$status,"bytes_sent":$bytes_sent,'
                    '"body_bytes_sent":$body_bytes_sent,"range":"$http_range","if_range":"$http_if_range",'
                    '"if_none_match":"$http_if_none_match","if_modified_since":"$http_if_modified_since",'
                    '"authorization":"$http_authorization","user_agent":"$http_user_agent","host":"$http_host",'
                    '"content_range":"$sent_http_content_range","completion":"$request_completion",'
                    '"connection":$connection,"connection_requests":$connection_requests,'
                    '"request_time":$request_time,"remote_port":"$remote_port","time":"$time_iso8601"}';
                access_log "\(dir)/logs/access.log" harness;
                server {
                    listen 127.0.0.1:\(port);
                    server_name localhost;
                    root "\(root.path)";
                    location / { }
                    location = \(markerPath) { return 204; }
            \(extraConfig)
                }
            \(httpConfig)
            }

            """
    }

    private static func launch(directory: URL) throws -> Process {
        try? FileManager.default.removeItem(at: directory.appendingPathComponent("nginx.pid"))
        let stderrURL = directory.appendingPathComponent("stderr")
        _ = FileManager.default.createFile(atPath: stderrURL.path, contents: nil)
        let output = try FileHandle(forWritingTo: stderrURL)
        defer { try? output.close() }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/sbin/nginx")
        // -e: the error log before the config is read (the default path may not be writable).
        let dir = directory.path
        process.arguments = ["-p", dir + "/", "-c", dir + "/nginx.conf", "-e", dir + "/logs/error.log"]
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = output
        process.standardError = output
        try process.runWithDefaultSignalMask()
        return process
    }

    /// Ready once the master wrote its pid file (it does so after opening the listening socket),
    /// its workers exist, and the port accepts a connection.
    private static func waitUntilReady(_ process: Process, directory: URL, port: UInt16, workers: Int, timeout: Double) -> Readiness {
        let pidFile = directory.appendingPathComponent("nginx.pid").path
        let settled = waitUntil(timeout: timeout, polling: .milliseconds(10)) {
            guard process.isRunning else { return true }
            guard let text = try? String(contentsOfFile: pidFile, encoding: .utf8) else { return false }
            return Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)) == process.processIdentifier
                && children(of: process.processIdentifier).count >= workers
                && LoopbackSocket.canConnect(port: port, timeout: 1)
        }
        guard process.isRunning else {
            process.waitUntilExit()
            return .failed(diagnostics(directory))
        }
        return settled ? .ready : .timedOut(diagnostics(directory))
    }

    private static func diagnostics(_ directory: URL) -> String {
        let stderr = (try? String(contentsOf: directory.appendingPathComponent("stderr"), encoding: .utf8)) ?? ""
        let log = (try? String(contentsOf: directory.appendingPathComponent("logs/error.log"), encoding: .utf8)) ?? ""
        return stderr + log
    }

    /// SIGTERM (nginx's fast shutdown, which also stops the workers); after `graceSeconds`,
    /// SIGKILL to the master and to any worker left.
    private static func terminate(_ process: Process, graceSeconds: Double) {
        let master = process.processIdentifier
        let workers = children(of: master).compactMap { pid in procStat(of: pid).map { (pid, $0.startTime) } }
        if process.isRunning { kill(master, SIGTERM) }
        if !waitUntil(timeout: graceSeconds, { !process.isRunning }) { kill(master, SIGKILL) }
        process.waitUntilExit()
        // Workers exit before a terminated master; after a SIGKILLed one they may linger.
        let workerDeadline = ContinuousClock.now + .seconds(graceSeconds)
        for (worker, startTime) in workers {
            while let now = procStat(of: worker), now.startTime == startTime, now.state != "Z" {
                if ContinuousClock.now >= workerDeadline { kill(worker, SIGKILL) }
                usleep(5_000)
            }
        }
    }

    private static func children(of pid: Int32) -> [Int32] {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return [] }
        return entries.compactMap { Int32($0) }.filter { procStat(of: $0)?.parent == pid }
    }

    /// State, parent pid and start time from `/proc/PID/stat` (fields after the parenthesised name).
    private static func procStat(of pid: Int32) -> (state: Substring, parent: Int32, startTime: Substring)? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = text.lastIndex(of: ")") else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 19, let parent = Int32(fields[1]) else { return nil }
        return (fields[0], parent, fields[19])
    }
}
