import Foundation
import Glibc
import Testing
import TestSupport

/// The test servers do what they claim, as a plain client (`/usr/bin/curl`) sees it.
@Suite struct ServerHarnessTests {
    // MARK: - nginx

    @Test func nginxServesAPrivateTreeAndLogsRangeAndConditionalHeaders() throws {
        let files = try TemporaryDirectory()  // 0700, as tests make them
        let resource = FaultResource.pattern(size: 100_000, seed: 7)
        try FileManager.default.createDirectory(at: files.url.appendingPathComponent("dir"), withIntermediateDirectories: true)
        try resource.allBytes.write(to: files.url.appendingPathComponent("dir/a.bin"))
        let nginx = try NginxServer(root: files.url)
        defer { nginx.stop() }
        #expect(nginx.baseURL == "http://127.0.0.1:\(nginx.port)/")

        let full = try CurlCommand.run([nginx.url("dir/a.bin")])
        #expect(full.status == 0)
        #expect(full.httpStatus == 200)
        #expect(full.body == resource.allBytes)
        let etag = try #require(full.header("ETag"))

        let ranged = try CurlCommand.run([
            "-H", "Range: bytes=100-", "-H", "If-Range: \(etag)", "-H", "Authorization: Bearer s3cret", nginx.url("dir/a.bin"),
        ])
        #expect(ranged.httpStatus == 206)
        #expect(ranged.header("Content-Range") == "bytes 100-99999/100000")
        #expect(ranged.body == resource.bytes(in: 100..<100_000))

        let conditional = try CurlCommand.run(["-H", "If-None-Match: \(etag)", nginx.url("dir/a.bin")])
        #expect(conditional.httpStatus == 304)
        // Two URLs, one curl: one connection, reused.
        let twice = try CurlCommand.run([nginx.url("dir/a.bin"), "-o", "/dev/null", nginx.url("missing")])
        #expect(twice.status == 0)

        let log = nginx.waitForAccessLog(count: 5)
        try #require(log.count == 5)
        #expect(log[0].request == "GET /dir/a.bin HTTP/1.1")
        #expect(log[0].status == 200 && log[0].bodyBytesSent == 100_000 && log[0].completed)
        #expect(log[0].range == nil && log[0].authorization == nil)
        #expect(log[1].status == 206)
        #expect(log[1].range == "bytes=100-")
        #expect(log[1].ifRange == etag)
        #expect(log[1].authorization == "Bearer s3cret")
        #expect(log[1].contentRange == "bytes 100-99999/100000")
        #expect(log[1].bodyBytesSent == 99_900)
        #expect(log[2].status == 304 && log[2].ifNoneMatch == etag)
        #expect(log[3].path == "/dir/a.bin" && log[4].path == "/missing" && log[4].status == 404)
        #expect(log[3].connection == log[4].connection && log[4].connectionRequests == 2)
        #expect(log[0].connection != log[1].connection)
    }

    @Test func nginxTakesExtraConfigAndLeavesNoProcessBehind() throws {
        let files = try TemporaryDirectory()
        try Data("hello\n".utf8).write(to: files.url.appendingPathComponent("hello.txt"))
        let nginx = try NginxServer(
            root: files.url, extraConfig: "location = /gone { return 410; }", workers: 2)
        let other = try NginxServer(root: files.url)
        defer { other.stop() }
        #expect(nginx.port != other.port)
        let master = nginx.pid
        let workers = nginx.workerPIDs()
        #expect(workers.count == 2)

        #expect(try CurlCommand.run([nginx.url("gone")]).httpStatus == 410)
        let hello = try CurlCommand.run([nginx.url("hello.txt", host: "localhost")])
        #expect(hello.body == Data("hello\n".utf8))
        #expect(nginx.waitForAccessLog(count: 2).last?.host == "localhost:\(nginx.port)")

        nginx.stop()
        nginx.stop()
        #expect(!nginx.isRunning)
        for pid in [master] + workers { #expect(kill(pid, 0) != 0, "pid \(pid) still exists") }
        #expect(!LoopbackSocket.canConnect(port: nginx.port, timeout: 0.5))
        #expect(try CurlCommand.run([other.url("hello.txt")]).httpStatus == 200)
    }

    @Test func nginxIsStoppedWhenReleased() throws {
        let files = try TemporaryDirectory()
        var nginx: NginxServer? = try NginxServer(root: files.url)
        let master = try #require(nginx?.pid)
        let directory = try #require(nginx?.directory)
        nginx = nil
        #expect(kill(master, 0) != 0)
        #expect(!FileManager.default.fileExists(atPath: directory.path))
    }

    // MARK: - FaultServer: correct serving

    @Test func serveHonoursRangesAndValidators() throws {
        let server = try FaultServer()
        defer { server.stop() }
        let resource = FaultResource.pattern(size: 10_000, seed: 3)
        server.route("/f.bin", .serve(resource))
        let url = server.url("f.bin")
        let etag = try #require(resource.etag)
        let lastModified = "Mon, 01 Jan 2024 00:00:00 GMT"

        let full = try CurlCommand.run([url])
        #expect(full.httpStatus == 200 && full.body == resource.allBytes)
        #expect(full.header("ETag") == etag)
        #expect(full.header("Last-Modified") == lastModified)
        #expect(full.header("Accept-Ranges") == "bytes")
        #expect(full.header("Content-Length") == "10000")

        let cases: [(range: String, ifRange: String?, status: Int, contentRange: String?, bytes: Range<Int>)] = [
            ("bytes=100-199", nil, 206, "bytes 100-199/10000", 100..<200),
            ("bytes=9000-", nil, 206, "bytes 9000-9999/10000", 9000..<10_000),
            ("bytes=-10", nil, 206, "bytes 9990-9999/10000", 9990..<10_000),
            ("bytes=9990-20000", nil, 206, "bytes 9990-9999/10000", 9990..<10_000),
            ("bytes=5000-", etag, 206, "bytes 5000-9999/10000", 5000..<10_000),
            ("bytes=5000-", lastModified, 206, "bytes 5000-9999/10000", 5000..<10_000),
            ("bytes=5000-", "\"other\"", 200, nil, 0..<10_000),
            ("bytes=5000-", "W/\(etag)", 200, nil, 0..<10_000),
            ("bytes=0-1,5-6", nil, 200, nil, 0..<10_000),
            ("bytes=10000-", nil, 416, "bytes */10000", 0..<0),
        ]
        for item in cases {
            var arguments = ["-H", "Range: \(item.range)", url]
            if let ifRange = item.ifRange { arguments = ["-H", "If-Range: \(ifRange)"] + arguments }
            let result = try CurlCommand.run(arguments)
            #expect(result.httpStatus == item.status, "\(item)")
            #expect(result.header("Content-Range") == item.contentRange, "\(item)")
            if item.status != 416 { #expect(result.body == resource.bytes(in: item.bytes), "\(item)") }
        }

        #expect(try CurlCommand.run(["-H", "If-None-Match: \(etag)", url]).httpStatus == 304)
        #expect(try CurlCommand.run(["-H", "If-Modified-Since: \(lastModified)", url]).httpStatus == 304)
        let head = try CurlCommand.run(["-I", url])
        #expect(head.httpStatus == 200 && head.header("Content-Length") == "10000")
        #expect(try CurlCommand.run(["-X", "DELETE", url]).httpStatus == 405)
        #expect(try CurlCommand.run([server.url("nothing-here")]).httpStatus == 404)

        let records = server.requests(to: "/f.bin")
        #expect(records.count == cases.count + 5)
        #expect(records.map(\.attempt) == Array(1...records.count))
        #expect(records[1].range == "bytes=100-199")
        #expect(records[5].ifRange == etag)
    }

    @Test func largeBodiesStream() throws {
        let server = try FaultServer()
        defer { server.stop() }
        let resource = FaultResource.pattern(size: 32 << 20, seed: 11)
        server.route("big", .serve(resource))
        let result = try CurlCommand.run([server.url("big")])
        #expect(result.status == 0)
        #expect(result.body.count == resource.size)
        #expect(result.body == resource.allBytes)
        #expect(server.waitForResponses(1).first?.bodyBytesSent == resource.size)
    }

    @Test func keepAliveAndConnectionClose() throws {
        let server = try FaultServer()
        defer { server.stop() }
        server.route("/a", .serve(.text("a")))
        server.route("/b", .serve(.text("b")).closingConnection())

        // -o applies to the first URL; the others go to /dev/null.
        _ = try CurlCommand.run(["a", "a", "b", "a"].enumerated().flatMap { index, path in
            index == 0 ? [server.url(path)] : ["-o", "/dev/null", server.url(path)]
        })
        let records = server.waitForResponses(4)
        try #require(records.count == 4)
        #expect(records[0].connectionID == records[1].connectionID)
        #expect(records[1].requestOnConnection == 2)
        #expect(records[2].connectionID == records[1].connectionID)  // the close comes after b's response
        #expect(records[3].connectionID != records[2].connectionID)
        #expect(records[3].requestOnConnection == 1)
        #expect(records.allSatisfy { $0.completed })
    }

    // MARK: - FaultServer: broken transfers

    @Test func truncatedBodyIsAPartialFile() throws {
        let server = try FaultServer()
        defer { server.stop() }
        let resource = FaultResource.pattern(size: 50_000)
        server.route("t", .serve(resource).truncated(after: 1_000))
        server.route("short", .serve(resource).declaringContentLength(60_000))
        let truncated = try CurlCommand.run([server.url("t")])
        #expect(truncated.status == 18)
        #expect(truncated.header("Content-Length") == "50000")
        #expect(truncated.body == resource.bytes(in: 0..<1_000))
        let short = try CurlCommand.run([server.url("short")])
        #expect(short.status == 18)
        #expect(short.body == resource.allBytes)
        let records = server.waitForResponses(2)
        #expect(records.map(\.bodyBytesSent) == [1_000, 50_000])
        #expect(records.map(\.completed) == [false, true])
    }

    @Test func resetIsARecvError() throws {
        let server = try FaultServer()
        defer { server.stop() }
        server.route("r", .serve(.pattern(size: 50_000)).reset(after: 2_000))
        let result = try CurlCommand.run([server.url("r")])
        #expect(result.status == 56)
        #expect(result.body.count <= 2_000)
    }

    @Test func stallTripsTimeoutsAndStopEndsIt() throws {
        let server = try FaultServer()
        let resource = FaultResource.pattern(size: 50_000)
        server.route("s", .serve(resource).stalled(after: 1_000, for: 60))
        server.route("silent", .noResponse())
        let stalled = try CurlCommand.run(["--speed-limit", "1000", "--speed-time", "1", server.url("s")])
        #expect(stalled.status == 28)
        #expect(stalled.body == resource.bytes(in: 0..<1_000))
        let silent = try CurlCommand.run(["--max-time", "0.5", server.url("silent")])
        #expect(silent.status == 28)

        let waiting = try CurlCommand([server.url("s")])
        #expect(waitUntil { server.requests(to: "s").count == 2 && server.requests(to: "s")[1].bodyBytesSent == 1_000 })
        let started = ContinuousClock.now
        server.stop()
        #expect(ContinuousClock.now - started < .seconds(2))
        #expect(server.openConnections == 0)
        let result = waiting.wait(timeout: 10)
        #expect(!result.timedOut)
        #expect(result.status == 18)
        #expect(!LoopbackSocket.canConnect(port: server.port, timeout: 0.5))
    }

    @Test func stallCanResume() throws {
        let server = try FaultServer()
        defer { server.stop() }
        let resource = FaultResource.pattern(size: 20_000)
        server.route("s", .serve(resource).stalled(after: 5_000, for: 0.3, then: .resume))
        let result = try CurlCommand.run([server.url("s")])
        #expect(result.status == 0 && result.body == resource.allBytes)
        #expect(result.seconds >= 0.3)
    }

    @Test func bodiesLongerThanTheSize() throws {
        let server = try FaultServer()
        defer { server.stop() }
        let resource = FaultResource.pattern(size: 10_000)
        let extra = Data(repeating: UInt8(ascii: "X"), count: 500)
        server.route("more", .serve(resource).appendingBytes(500))
        server.route("larger", .serve(resource).appendingBytes(500).declaringContentLength(10_500))
        server.route("close", .serve(resource).appendingBytes(500).closeDelimited())
        server.route("chunked", .serve(resource).appendingBytes(500).chunked(chunkSize: 4_096))

        let more = try CurlCommand.run([server.url("more")])
        #expect(more.header("Content-Length") == "10000")
        #expect(more.status == 0 && more.body == resource.allBytes)  // curl stops at the declared length
        #expect(server.waitForResponses(1, to: "more").first?.bodyBytesSent == 10_500)

        let larger = try CurlCommand.run([server.url("larger")])
        #expect(larger.header("Content-Length") == "10500")
        #expect(larger.status == 0 && larger.body == resource.allBytes + extra)

        let close = try CurlCommand.run([server.url("close")])
        #expect(close.header("Content-Length") == nil && close.header("Connection") == "close")
        #expect(close.status == 0 && close.body == resource.allBytes + extra)

        let chunked = try CurlCommand.run([server.url("chunked")])
        #expect(chunked.header("Transfer-Encoding") == "chunked" && chunked.header("Content-Length") == nil)
        #expect(chunked.status == 0 && chunked.body == resource.allBytes + extra)
    }

    @Test func corruptedByteDiffersOnlyAtItsOffset() throws {
        let server = try FaultServer()
        defer { server.stop() }
        let resource = FaultResource.pattern(size: 100_000, seed: 5)
        let corrupt = resource.flippingByte(at: 70_000)
        #expect(corrupt.etag == resource.etag)
        server.route("c", .serve(corrupt))
        let result = try CurlCommand.run([server.url("c")])
        #expect(result.status == 0 && result.body.count == 100_000)
        let original = resource.allBytes
        let differences = (0..<original.count).filter { result.body[$0] != original[$0] }
        #expect(differences == [70_000])
        #expect(result.body[70_000] == original[70_000] ^ 0xFF)
        #expect(corrupt.crc32 != resource.crc32)

        let ranged = try CurlCommand.run(["-r", "69990-70009", server.url("c")])
        #expect(ranged.body == corrupt.bytes(in: 69_990..<70_010))
        #expect(ranged.body[10] != original[70_000])
    }

    @Test func rawCustomAndFileBackedResponses() throws {
        let files = try TemporaryDirectory()
        let onDisk = files.url.appendingPathComponent("disk.bin")
        try FaultResource.pattern(size: 3_000, seed: 9).allBytes.write(to: onDisk)
        let server = try FaultServer()
        defer { server.stop() }
        server.route("raw", .raw("HTTP/1.1 200 OK\r\nX-Raw: yes\r\n\r\nraw body"))
        server.route("file", .serve(try FaultResource.file(onDisk)).header("Cache-Control", "no-store"))
        server.route("teapot", .custom { request in
            FaultResponse(status: 418, reason: "I'm a teapot", headers: ["X-Path": request.path], body: Data("short and stout".utf8))
        })
        server.setFallback(.status(410))

        let raw = try CurlCommand.run([server.url("raw")])
        #expect(raw.status == 0 && raw.header("X-Raw") == "yes" && raw.body == Data("raw body".utf8))
        #expect(raw.header("Date") == nil && raw.header("Content-Length") == nil)
        let file = try CurlCommand.run(["-r", "1000-1999", server.url("file")])
        let expected = try Data(contentsOf: onDisk).subdata(in: 1000..<2000)
        #expect(file.httpStatus == 206 && file.body == expected)
        #expect(file.header("Cache-Control") == "no-store")
        let teapot = try CurlCommand.run([server.url("teapot")])
        #expect(teapot.heads.last?.first == "HTTP/1.1 418 I'm a teapot")
        #expect(teapot.header("x-path") == "/teapot" && teapot.body == Data("short and stout".utf8))
        #expect(try CurlCommand.run([server.url("elsewhere")]).httpStatus == 410)
        server.removeRoute("teapot")
        #expect(try CurlCommand.run([server.url("teapot")]).httpStatus == 410)
    }

    // MARK: - FaultServer: range faults

    @Test func rangeFaultsDefeatAResume() throws {
        let server = try FaultServer()
        defer { server.stop() }
        let resource = FaultResource.pattern(size: 10_000)
        server.route("ignore", .ignoringRange(resource))
        server.route("wrong", .wrongContentRange(resource, shift: 1))
        server.route("refuse", .rangeNotSatisfiable(resource))

        let ignored = try CurlCommand.run(["-r", "100-", server.url("ignore")])
        #expect(ignored.httpStatus == 200 && ignored.body == resource.allBytes)
        #expect(try CurlCommand.run(["-C", "100", server.url("ignore")]).status == 33)

        let wrong = try CurlCommand.run(["-r", "100-199", server.url("wrong")])
        #expect(wrong.httpStatus == 206)
        #expect(wrong.header("Content-Range") == "bytes 101-200/10000")
        #expect(wrong.body == resource.bytes(in: 101..<201))
        #expect(try CurlCommand.run(["-C", "100", server.url("wrong")]).status == 33)

        let refused = try CurlCommand.run(["-r", "100-", server.url("refuse")])
        #expect(refused.httpStatus == 416 && refused.header("Content-Range") == "bytes */10000")
        #expect(try CurlCommand.run([server.url("refuse")]).httpStatus == 200)
        #expect(server.requests(to: "wrong").allSatisfy { $0.range != nil })
    }

    // MARK: - FaultServer: statuses, retries, redirects

    @Test func statusCodesAndAttempts() throws {
        let server = try FaultServer()
        defer { server.stop() }
        let resource = FaultResource.text("finally\n")
        server.route("flaky", .sequence([.serverError, .status(502), .serve(resource)]))
        server.route("twice", .failing(2, with: .tooManyRequests(retryAfter: "2"), then: .serve(resource)))
        server.route("busy", .unavailable(retryAfter: "1"))
        server.route("timeout", .requestTimeout)
        server.route("gone", .notFound)

        let flaky = try (0..<4).map { _ in try CurlCommand.run([server.url("flaky")]) }
        #expect(flaky.map(\.httpStatus) == [500, 502, 200, 200])
        #expect(flaky[3].body == Data("finally\n".utf8))
        #expect(server.requests(to: "flaky").map(\.attempt) == [1, 2, 3, 4])
        #expect(server.requests(to: "flaky").map(\.responseStatus) == [500, 502, 200, 200])

        let twice = try (0..<3).map { _ in try CurlCommand.run([server.url("twice")]) }
        #expect(twice.map(\.httpStatus) == [429, 429, 200])
        #expect(twice[0].header("Retry-After") == "2")

        let busy = try CurlCommand.run([server.url("busy")])
        #expect(busy.httpStatus == 503 && busy.header("Retry-After") == "1")
        let timeout = try CurlCommand.run([server.url("timeout")])
        #expect(timeout.httpStatus == 408 && timeout.header("Connection") == "close")
        #expect(try CurlCommand.run([server.url("gone")]).httpStatus == 404)
        #expect(try CurlCommand.run(["-f", server.url("gone")]).status == 22)
    }

    @Test func redirectsAcrossSchemesHostsAndPorts() throws {
        let first = try FaultServer()
        let second = try FaultServer()
        defer {
            first.stop()
            second.stop()
        }
        let resource = FaultResource.text("target\n")
        second.route("/target", .serve(resource))
        first.route("/passwd", .redirect(302, to: "file:///etc/passwd"))
        first.route("/cross", .redirect(301, to: second.url("target", host: "localhost")))
        first.route("/port", .redirect(307, to: second.url("target")))

        let passwd = try CurlCommand.run([first.url("passwd")])
        #expect(passwd.httpStatus == 302 && passwd.header("Location") == "file:///etc/passwd")
        let followed = try CurlCommand.run(["-L", "--proto-redir", "=http,https", first.url("passwd")])
        #expect(followed.status == 1)
        #expect(!String(decoding: followed.body, as: UTF8.self).contains("root:"))

        let cross = try CurlCommand.run(["-L", "-H", "Authorization: Bearer s3cret", first.url("cross")])
        #expect(cross.status == 0 && cross.body == Data("target\n".utf8))
        #expect(cross.heads.compactMap { $0.first?.split(separator: " ").dropFirst().first } == ["301", "200"])
        let port = try CurlCommand.run(["-L", "-u", "user:pass", first.url("port")])
        #expect(port.status == 0 && port.body == Data("target\n".utf8))

        #expect(first.requests.map(\.authorization) == [nil, nil, "Bearer s3cret", "Basic dXNlcjpwYXNz"])
        let arrived = second.requests
        #expect(arrived.count == 2)
        #expect(arrived.map { $0[header: "Host"] } == ["localhost:\(second.port)", "127.0.0.1:\(second.port)"])
        #expect(arrived.allSatisfy { $0.authorization == nil })
    }

    // MARK: - FaultServer: slowness, records, parsing, stopping

    @Test func slowServerCanBeInterruptedMidTransfer() throws {
        let server = try FaultServer()
        defer { server.stop() }
        let resource = FaultResource.pattern(size: 10_000)
        server.route("slow", .serve(resource).slow(chunkSize: 1_000, delay: 0.04))
        let whole = try CurlCommand.run([server.url("slow")])
        #expect(whole.status == 0 && whole.body == resource.allBytes)
        #expect(whole.seconds >= 0.35)

        server.route("slower", .serve(resource).slow(chunkSize: 100, delay: 0.05))
        let curl = try CurlCommand(["--no-buffer", server.url("slower")])
        #expect(waitUntil { curl.bodyBytesSoFar >= 300 })
        #expect(Process.blockedSignals(of: curl.pid) == 0)
        curl.signal(SIGINT)
        let interrupted = curl.wait(timeout: 10)
        #expect(!interrupted.timedOut && interrupted.status == SIGINT)
        #expect(interrupted.body.count >= 300 && interrupted.body.count < 10_000)
        let record = try #require(server.waitForResponses(1, to: "slower").first)
        #expect(!record.completed)
        #expect(record.bodyBytesSent >= 300 && record.bodyBytesSent < 10_000)
    }

    @Test func requestsAreRecordedWithHeadersBodyAndTimes() throws {
        let server = try FaultServer()
        defer { server.stop() }
        server.route("/echo", .custom { request in
            FaultResponse(status: 200, headers: ["X-Attempt": String(request.attempt)], body: request.body)
        })
        let before = ContinuousClock.now
        let result = try CurlCommand.run([
            "-H", "x-custom-HEADER: one", "-H", "If-None-Match: \"e1\"", "-d", "payload", server.url("echo?q=1&r=2"),
        ])
        #expect(result.body == Data("payload".utf8))
        #expect(result.header("x-attempt") == "1")
        let request = try #require(server.requests.first)
        #expect(request.method == "POST")
        #expect(request.target == "/echo?q=1&r=2")
        #expect(request.path == "/echo" && request.query == "q=1&r=2")
        #expect(request.version == "HTTP/1.1")
        #expect(request[header: "X-Custom-Header"] == "one")
        #expect(request.headers["if-none-match"] == "\"e1\"")
        #expect(request.headers.fields.contains { $0.name == "x-custom-HEADER" })
        #expect(request.body == Data("payload".utf8))
        #expect(request.instant >= before && request.instant <= .now)
        #expect(abs(request.time.timeIntervalSinceNow) < 60)
        #expect(server.requests(to: "/echo").count == 1)
    }

    @Test func parsesSplitRequestsAndBareLineFeeds() throws {
        let server = try FaultServer()
        defer { server.stop() }
        server.route("/p", .serve(.text("ok")))
        let fd = try LoopbackSocket.connect(port: server.port)
        defer { close(fd) }
        for piece in ["GE", "T /p HTTP/1.1\r\nhost: x\r\nrAnGe: bytes=1-\r", "\n", "\r\n",
                      "GET /p HTTP/1.1\nHost: x\nConnection: close\n\n"] {
            _ = piece.withCString { Glibc.send(fd, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
            usleep(20_000)  // apart in time, so that the server reads each piece on its own: the point of the test
        }
        var received = Data()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = recv(fd, &buffer, buffer.count, 0)
            if n <= 0 { break }
            received.append(contentsOf: buffer[0..<n])
        }
        let text = String(decoding: received, as: UTF8.self)
        #expect(text.hasPrefix("HTTP/1.1 206 Partial Content\r\n"))
        #expect(text.contains("Content-Range: bytes 1-1/2\r\n"))
        #expect(text.contains("\r\n\r\nkHTTP/1.1 200 OK\r\n"))
        #expect(text.hasSuffix("\r\n\r\nok"))
        let records = server.requests
        try #require(records.count == 2)
        #expect(records[0].range == "bytes=1-" && records[1].wantsClose)
        #expect(records[0].connectionID == records[1].connectionID)
    }

    @Test func stopClosesIdleConnectionsAndIsIdempotent() throws {
        var server: FaultServer? = try FaultServer()
        let port = try #require(server?.port)
        server?.route("/k", .serve(.text("k")))
        let fd = try LoopbackSocket.connect(port: port)
        defer { close(fd) }
        _ = "GET /k HTTP/1.1\r\nHost: x\r\n\r\n".withCString { Glibc.send(fd, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
        var buffer = [UInt8](repeating: 0, count: 4096)
        var response = Data()
        while !response.ends(with: Data("\r\n\r\nk".utf8)) {  // head and body may come in two reads
            let n = recv(fd, &buffer, buffer.count, 0)
            try #require(n > 0)
            response.append(contentsOf: buffer[0..<n])
        }
        #expect(server?.openConnections == 1)

        let started = ContinuousClock.now
        server?.stop()
        server?.stop()
        #expect(recv(fd, &buffer, buffer.count, 0) <= 0)  // end of stream (or reset): the server let go
        #expect(ContinuousClock.now - started < .seconds(2))
        #expect(server?.openConnections == 0)
        #expect(server?.requests.count == 1)  // records outlive stop
        server = nil  // deinit after stop is fine
        #expect(!LoopbackSocket.canConnect(port: port, timeout: 0.5))
    }

    @Test func releasingAServerStopsIt() throws {
        var server: FaultServer? = try FaultServer()
        let port = try #require(server?.port)
        server?.route("/s", .serve(.pattern(size: 100_000)).stalled(after: 10, for: 60))
        let curl = try CurlCommand([server!.url("s")])
        #expect(waitUntil { server?.requests.first?.bodyBytesSent == 10 })
        server = nil
        let result = curl.wait(timeout: 10)
        #expect(!result.timedOut && result.status == 18)
        #expect(!LoopbackSocket.canConnect(port: port, timeout: 0.5))
    }
}

extension Data {
    fileprivate func ends(with suffix: Data) -> Bool { count >= suffix.count && self.suffix(suffix.count) == suffix }
}
