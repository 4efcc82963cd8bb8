import Foundation
import Glibc
import Testing
import TestSupport

/// Manifest-level mirror bases against real servers: a primary that is down or failing, a mirror
/// serving corrupt bytes, and every source failing. Files run one at a time (`--jobs 1`), so that
/// "later files" are those started after a source was marked bad.
@Suite struct PullMirrorTests {
    static let size = 100_000

    static func resource(_ seed: UInt64) -> FaultResource { .pattern(size: size, seed: seed) }

    /// A loopback port with nothing listening: connections to it are refused.
    static func closedPort() throws -> UInt16 {
        let (fd, port) = try LoopbackSocket.listen()
        close(fd)
        return port
    }

    /// The sandbox's manifest lists `paths` under `base`, with `mirrors` as its mirror bases.
    static func sandbox(_ paths: [String], base: String, mirrors: [String]) throws -> Sandbox {
        let sandbox = try Sandbox()
        for (index, path) in paths.enumerated() { sandbox.add(path, resource(UInt64(index + 1)), url: nil) }
        sandbox.base = base
        sandbox.mirrors = mirrors
        return sandbox
    }

    /// The JSON events of `type` a run wrote on stdout.
    static func events(_ result: RunResult, _ type: String) throws -> [[String: Any]] {
        try result.stdout.split(separator: "\n").map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any] }
            .filter { $0["type"] as? String == type }
    }

    @Test("the primary down: the first file comes from the mirror, and later files never ask the primary")
    func primaryDown() throws {
        let mirror = try FaultServer()
        defer { mirror.stop() }
        let down = "http://127.0.0.1:\(try Self.closedPort())/"
        let paths = ["a.bin", "b.bin", "c.bin"]
        let sandbox = try Self.sandbox(paths, base: down, mirrors: [mirror.baseURL])
        defer { sandbox.checkInvariants() }
        for (index, path) in paths.enumerated() { mirror.route(path, .serve(Self.resource(UInt64(index + 1)))) }

        let result = try sandbox.pull(["--jobs", "1", "--retries", "1", "--json"])

        #expect(result.status == 0, "\(result.stderr)")
        // Only the first file tried the primary, once: nothing listens there, and a mirror can be asked at
        // once. The others started at the mirror.
        let retries = result.stderrLines.filter { $0.hasPrefix("retry    ") }
        #expect(retries.count == 1 && retries.allSatisfy { $0.hasPrefix("retry    a.bin: ") }, "\(result.stderr)")
        #expect(retries.last?.hasSuffix("; trying mirror 1") == true)
        let starts = try Self.events(result, "start").map { $0["url"] as? String }
        #expect(starts == [down + "a.bin", mirror.url("b.bin"), mirror.url("c.bin")])
        for path in paths {
            #expect(result.stderrLines.contains("new      \(path) (97.7 KiB) from mirror \(mirror.url(path))"))
        }
        let done = try Self.events(result, "done")
        #expect(done.map { $0["mirror"] as? String } == Array(repeating: mirror.baseURL, count: 3))
        #expect(done.allSatisfy { $0["primary"] as? Bool == false })
        #expect(mirror.requests.map(\.path) == ["/a.bin", "/b.bin", "/c.bin"])
        #expect(try sandbox.cached() == sandbox.expected)
    }

    @Test("the primary answering 5xx: its retries spent on the first file, later files go straight to an honest mirror")
    func primaryServerErrors() throws {
        let primary = try FaultServer()
        defer { primary.stop() }
        primary.setFallback(.serverError)
        let paths = ["a.bin", "b.bin", "c.bin"]
        let sandbox = try Self.sandbox(paths, base: primary.baseURL, mirrors: [])
        defer { sandbox.checkInvariants() }
        for (index, path) in paths.enumerated() { try sandbox.writeServed(path, Self.resource(UInt64(index + 1)).allBytes) }
        let nginx = try NginxServer(root: sandbox.served)
        defer { nginx.stop() }
        sandbox.mirrors = [nginx.baseURL]

        let result = try sandbox.pull(["--jobs", "1", "--retries", "1", "--json"])

        #expect(result.status == 0, "\(result.stderr)")
        #expect(primary.requests.map(\.path) == ["/a.bin", "/a.bin"])  // a try and one retry, then never again
        #expect(nginx.waitForAccessLog(count: 3).map(\.path) == ["/a.bin", "/b.bin", "/c.bin"])
        #expect(try Self.events(result, "done").map { $0["url"] as? String } == paths.map { nginx.url($0) })
        #expect(try sandbox.cached() == sandbox.expected)
    }

    @Test("a mirror serving corrupt bytes: the next mirror serves the file, and later files skip the corrupt one")
    func corruptMirror() throws {
        let primary = try FaultServer()
        let corrupt = try FaultServer()
        let honest = try FaultServer()
        defer {
            primary.stop()
            corrupt.stop()
            honest.stop()
        }
        primary.setFallback(.notFound)  // a 404 marks nothing: the primary is asked for every file
        let paths = ["a.bin", "b.bin"]
        let sandbox = try Self.sandbox(paths, base: primary.baseURL, mirrors: [corrupt.baseURL, honest.baseURL])
        defer { sandbox.checkInvariants() }
        for (index, path) in paths.enumerated() {
            let resource = Self.resource(UInt64(index + 1))
            corrupt.route(path, .serve(resource.flippingByte(at: 5000)))  // the right size, the wrong CRC
            honest.route(path, .serve(resource))
        }

        let result = try sandbox.pull(["--jobs", "1", "--json"])

        #expect(result.status == 0, "\(result.stderr)")
        #expect(primary.requests.map(\.path) == ["/a.bin", "/b.bin"])
        #expect(corrupt.requests.map(\.path) == ["/a.bin"])
        #expect(honest.requests.map(\.path) == ["/a.bin", "/b.bin"])
        #expect(result.stderrLines(startingWith: "retry    a.bin: ").last?.hasPrefix("retry    a.bin: CRC-32 is ") == true,
                "\(result.stderr)")
        #expect(try Self.events(result, "done").map { $0["mirror"] as? String } == [honest.baseURL, honest.baseURL])
        #expect(try sandbox.cached() == sandbox.expected)
    }

    @Test("every source failing: exit 1, and a line per URL with what it answered")
    func everySourceFails() throws {
        let missing = try FaultServer()
        let corrupt = try FaultServer()
        defer {
            missing.stop()
            corrupt.stop()
        }
        let down = "http://127.0.0.1:\(try Self.closedPort())/"
        missing.setFallback(.notFound)
        corrupt.route("a.bin", .serve(Self.resource(1).flippingByte(at: 0)))
        let sandbox = try Self.sandbox(["a.bin"], base: down, mirrors: [missing.baseURL, corrupt.baseURL])
        defer { sandbox.checkInvariants() }

        let result = try sandbox.pull(["--retries", "1", "--json"])

        #expect(result.status == 1, "\(result.stderr)")
        let lines = result.stderrLines
        let failed = try #require(lines.firstIndex { $0.hasPrefix("failed   a.bin: ") }, "\(result.stderr)")
        #expect(lines[failed] == "failed   a.bin: no source could serve it:")
        // Nothing listens at the primary and mirrors remain: it was left after one attempt.
        #expect(lines[failed + 1].hasPrefix("         \(down)a.bin: Failed to connect to 127.0.0.1 port "), "\(result.stderr)")
        #expect(!lines[failed + 1].contains("attempts)"))
        #expect(lines[failed + 2] == "         \(missing.url("a.bin")): HTTP 404")
        #expect(lines[failed + 3].hasPrefix("         \(corrupt.url("a.bin")): CRC-32 is "))
        #expect(lines[failed + 3].hasSuffix(" after a fresh download"))
        #expect(lines.contains("  a.bin: no source could serve it:"))  // the summary's list repeats them
        // The JSON event lists the same sources, each with the words of its line.
        let event = try #require(try Self.events(result, "failed").first)
        let listed = try #require(event["sources"] as? [[String: String]])
        #expect(listed.map { "         \($0["url"] ?? ""): \($0["reason"] ?? "")" } == Array(lines[(failed + 1)...(failed + 3)]))
        #expect(sandbox.finalContent("a.bin") == nil)
    }

    /// A 500 at one URL says nothing about another path on its host: the file's own mirrors there
    /// are asked (the corrupt one, then the right one) rather than skipped as "marked bad".
    @Test("mirrors on the primary's host: a 500 at the primary, corrupt bytes at one mirror, the file from the other")
    func mirrorsOnThePrimarysHost() throws {
        let server = try FaultServer()
        defer { server.stop() }
        let resource = Self.resource(7)
        server.route("p/f.bin", .serverError)
        server.route("bad/f.bin", .serve(resource.flippingByte(at: 5000)))
        server.route("good/f.bin", .serve(resource))
        let sandbox = try Sandbox()
        defer { sandbox.checkInvariants() }
        sandbox.add("f.bin", resource, url: server.url("p/f.bin"), mirrors: [server.url("bad/f.bin"), server.url("good/f.bin")])

        let result = try sandbox.pull(["--retries", "1", "--json"])

        #expect(result.status == 0, "\(result.stderr)")
        #expect(!result.stderr.contains("not asked"), "\(result.stderr)")
        #expect(server.requests.map(\.path) == ["/p/f.bin", "/p/f.bin", "/bad/f.bin", "/good/f.bin"])
        let retries = result.stderrLines(startingWith: "retry    f.bin: ")
        #expect(retries.count == 3, "\(result.stderr)")
        #expect(retries.last?.hasPrefix("retry    f.bin: CRC-32 is ") == true, "\(result.stderr)")
        #expect(result.stderrLines.contains("new      f.bin (97.7 KiB) from mirror \(server.url("good/f.bin"))"), "\(result.stderr)")
        // The corrupt bytes were dropped before any commit: one file done, from the right mirror.
        let done = try Self.events(result, "done")
        #expect(done.map { $0["url"] as? String } == [server.url("good/f.bin")])
        #expect(try Self.events(result, "failed").isEmpty)
        #expect(sandbox.finalContent("f.bin") == resource.allBytes)
        #expect(sandbox.partialNames().isEmpty)
    }
}
