import Foundation
import Glibc
import Testing
import TestSupport

/// A large file fetched as several `Range` requests over separate connections,
/// written into one partial and proven by the segments' CRCs joined. The threshold is lowered
/// through `ASSETSYNC_SEGMENT_THRESHOLD` so that a few MiB make four segments.
@Suite struct PullSegmentTests {
    static let size = 4 << 20
    /// Four segments of 1 MiB.
    static let segmented = ["ASSETSYNC_SEGMENT_THRESHOLD": "\(1 << 20)", "ASSETSYNC_SEGMENTS": "4"]
    static let segmentRanges = (0..<4).map { "bytes=\($0 << 20)-\((($0 + 1) << 20) - 1)" }

    /// JSON lines of `type` for `path`.
    static func events(_ stdout: String, type: String) -> [String] {
        stdout.split(separator: "\n").map(String.init).filter { $0.hasPrefix("{\"type\":\"\(type)\"") }
    }

    @Test("against nginx a large file comes as four 206 ranges on four connections, proven, started and finished once")
    func nginxServesFourSegments() throws {
        let sandbox = try Sandbox(serving: ["big.bin": PullNginxTests.random(Self.size)])
        defer { sandbox.checkInvariants() }
        // A rate limit per connection (without sendfile, which hands it a whole segment at once) keeps
        // each segment running while the others start.
        let nginx = try NginxServer(root: sandbox.served, extraConfig: "sendfile off; limit_rate 1m;")
        defer { nginx.stop() }
        _ = try sandbox.manifest(base: nginx.baseURL)
        let result = try sandbox.pull(["--json"], environment: Self.segmented)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try sandbox.cached() == sandbox.expected)
        #expect(sandbox.partialNames().isEmpty)
        let log = nginx.waitForAccessLog(count: 4)
        #expect(log.count == 4)
        #expect(log.allSatisfy { $0.status == 206 && $0.path == "/big.bin" && $0.completed })
        #expect(Set(log.compactMap(\.range)) == Set(Self.segmentRanges))
        #expect(Set(log.map(\.connection)).count == 4, "\(log.map(\.connection))")
        // The first range names the version; the others ask for it.
        #expect(log.filter { $0.ifRange != nil }.count == 3)
        #expect(Self.events(result.stdout, type: "start").count == 1)
        let done = Self.events(result.stdout, type: "done")
        #expect(done.count == 1 && done[0].contains("\"bytes_transferred\":\(Self.size),\"attempts\":1"), "\(done)")
        #expect(result.stderr.contains("new      big.bin (4.0 MiB)\n"), "\(result.stderr)")
    }

    @Test("a server that ignores Range answers the first segment with 200: the file comes as one stream, once")
    func serverIgnoringRangeMakesOneStream() throws {
        let sandbox = try Sandbox()
        defer { sandbox.checkInvariants() }
        let server = try FaultServer()
        defer { server.stop() }
        let resource = FaultResource.pattern(size: Self.size, seed: 101)
        server.route("/big.bin", .ignoringRange(resource))
        sandbox.add("big.bin", resource, url: server.url("big.bin"))
        let result = try sandbox.pull([], environment: Self.segmented)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(sandbox.finalContent("big.bin") == resource.allBytes)
        let requests = server.requests
        #expect(requests.count == 2, "\(requests.map(\.range))")
        #expect(requests.first?.range == Self.segmentRanges[0] && requests.first?.responseStatus == 200)
        #expect(requests.last?.range == nil && requests.last?.completed == true)
        #expect(result.stderr.contains("the server ignores Range; downloading as one stream"), "\(result.stderr)")
    }

    @Test("a segment cut mid-way is retried alone, from its own bytes on")
    func failingSegmentIsRetriedAlone() throws {
        let sandbox = try Sandbox()
        defer { sandbox.checkInvariants() }
        let server = try FaultServer()
        defer { server.stop() }
        let resource = FaultResource.pattern(size: Self.size, seed: 102)
        let cut = Self.segmentRanges[2]
        server.route("/big.bin", FaultBehavior.serve(resource).map { response, request in
            if request.range == cut { response.cutoff = .close(after: 300_000) }
        })
        sandbox.add("big.bin", resource, url: server.url("big.bin"))
        let result = try sandbox.pull([], environment: Self.segmented)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(sandbox.finalContent("big.bin") == resource.allBytes)
        let ranges = server.requests.compactMap(\.range)
        #expect(ranges.count == 5, "\(ranges)")
        #expect(Set(ranges).isSuperset(of: Self.segmentRanges))
        let retry = ranges.filter { !Self.segmentRanges.contains($0) }
        // The retry continues segment 2 after the bytes it kept, and asks for nothing else again.
        #expect(retry.count == 1 && retry[0].hasSuffix("-\((3 << 20) - 1)") && retry[0] != cut, "\(ranges)")
        #expect(server.requests.filter { $0.range == retry.first }.allSatisfy { $0.ifRange == resource.etag })
    }

    @Test("a segment that names another version than the first makes the file one stream from zero")
    func validatorChangeBetweenSegmentsRestartsAsOneStream() throws {
        let sandbox = try Sandbox()
        defer { sandbox.checkInvariants() }
        let server = try FaultServer()
        defer { server.stop() }
        let old = FaultResource.pattern(size: Self.size, seed: 103)
        let new = FaultResource.pattern(size: Self.size, seed: 104)
        // The first segment comes from the old version; then the file changes on the server.
        server.route("/big.bin", .custom { request in
            FaultRange.respond(request.attempt == 1 ? old : new, to: request)
        })
        sandbox.add("big.bin", new, url: server.url("big.bin"))
        let result = try sandbox.pull([], environment: Self.segmented)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(sandbox.finalContent("big.bin") == new.allBytes)
        #expect(result.stderr.contains("the file changed on the server between its segments; downloading as one stream"), "\(result.stderr)")
        // Segment requests already under way may arrive after it: one request without Range, whole.
        let whole = server.requests.filter { $0.range == nil }
        #expect(whole.count == 1 && whole.allSatisfy { $0.responseStatus == 200 && $0.completed }, "\(server.requests.map(\.range))")
    }

    /// Range answers a segment cannot use, each sent to every range request (a plain GET gets the
    /// whole file), and the words the fallback is announced with.
    static let rangeFaults: [(name: String, words: String)] = [
        ("wrong Content-Range", "a range was answered with Content-Range bytes 1-1048576/4194304; downloading as one stream"),
        ("416", "HTTP 416 (range not satisfiable); downloading as one stream"),
        ("multipart/byteranges", "a range was answered with multipart/byteranges; downloading as one stream"),
    ]

    static func rangeFault(_ name: String, _ resource: FaultResource) -> FaultBehavior {
        switch name {
        case "wrong Content-Range": .wrongContentRange(resource, shift: 1)
        case "416": .rangeNotSatisfiable(resource)
        default: .multipartRanges(resource)
        }
    }

    @Test("a range answered with a wrong Content-Range, a 416 or multipart/byteranges makes the file one whole GET, once",
          arguments: rangeFaults.map(\.name))
    func unusableRangeAnswerMakesOneStream(_ fault: String) throws {
        let sandbox = try Sandbox()
        defer { sandbox.checkInvariants() }
        let server = try FaultServer()
        defer { server.stop() }
        let resource = FaultResource.pattern(size: Self.size, seed: 106)
        server.route("/big.bin", Self.rangeFault(fault, resource))
        sandbox.add("big.bin", resource, url: server.url("big.bin"))
        let result = try sandbox.pull(["--json"], environment: Self.segmented)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(sandbox.finalContent("big.bin") == resource.allBytes)
        #expect(sandbox.partialNames().isEmpty)
        // The first segment's answer ends the segments before the others are asked: one whole GET follows.
        let requests = server.requests
        #expect(requests.count == 2, "\(requests.map { ($0.range, $0.responseStatus) })")
        #expect(requests.first?.range == Self.segmentRanges[0])
        #expect(requests.last?.range == nil && requests.last?.responseStatus == 200 && requests.last?.completed == true)
        let words = try #require(Self.rangeFaults.first { $0.name == fault }?.words)
        #expect(result.stderr.contains("retry    big.bin: \(words)"), "\(result.stderr)")
        #expect(!result.stderr.contains("restarting from zero"), "\(result.stderr)")
        #expect(Self.events(result.stdout, type: "start").count == 1 && Self.events(result.stdout, type: "done").count == 1)
    }

    @Test("a wrong Content-Range to a later segment, after the first named the version, makes the file one whole GET, once")
    func wrongContentRangeToALaterSegmentMakesOneStream() throws {
        let sandbox = try Sandbox()
        defer { sandbox.checkInvariants() }
        let server = try FaultServer()
        defer { server.stop() }
        let resource = FaultResource.pattern(size: Self.size, seed: 107)
        let broken = Self.segmentRanges[2]
        server.route("/big.bin", .custom { request in
            FaultRange.respond(resource, to: request, shift: request.range == broken ? -1 : 0)
        })
        sandbox.add("big.bin", resource, url: server.url("big.bin"))
        let result = try sandbox.pull([], environment: Self.segmented)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(sandbox.finalContent("big.bin") == resource.allBytes)
        let requests = server.requests
        // Every segment asked once, the broken one never again; then one request without Range, whole.
        #expect(requests.filter { $0.range == broken }.count == 1, "\(requests.map(\.range))")
        let whole = requests.filter { $0.range == nil }
        #expect(whole.count == 1 && whole.allSatisfy { $0.responseStatus == 200 && $0.completed }, "\(requests.map(\.range))")
        #expect(result.stderr.contains(
            "a range was answered with Content-Range bytes \((2 << 20) - 1)-\((3 << 20) - 2)/\(Self.size); downloading as one stream"),
            "\(result.stderr)")
    }

    @Test("a run killed mid-way leaves segments that the next run continues with If-Range")
    func killedRunResumesSegments() throws {
        let sandbox = try Sandbox()
        defer { sandbox.checkInvariants() }
        let server = try FaultServer()
        defer { server.stop() }
        let resource = FaultResource.pattern(size: Self.size, seed: 105)
        let (_, kept) = try Self.stoppedPull(by: SIGKILL, sandbox: sandbox, server: server, resource: resource)
        let before = server.requests.count

        server.route("/big.bin", .serve(resource))
        let result = try sandbox.pull([], environment: Self.segmented)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(sandbox.finalContent("big.bin") == resource.allBytes)
        let resumed = server.requests.dropFirst(before)
        #expect(resumed.allSatisfy { $0.ifRange == resource.etag && $0.range != nil }, "\(resumed.map(\.range))")
        #expect(Set(resumed.compactMap(\.range)) == Self.continuations(of: kept), "kept \(kept)")
    }

    @Test("SIGTERM while segments run on both transfer threads records every segment's bytes, which the next run continues")
    func stoppedRunRecordsEverySegment() throws {
        let sandbox = try Sandbox()
        defer { sandbox.checkInvariants() }
        let server = try FaultServer()
        defer { server.stop() }
        let resource = FaultResource.pattern(size: Self.size, seed: 106)
        let (stopped, kept) = try Self.stoppedPull(by: SIGTERM, sandbox: sandbox, server: server, resource: resource)
        #expect(stopped.status == 130, "\(stopped.stderr)")
        // The stop writes what each segment holds back and names it: every segment, on either thread, kept bytes.
        #expect(kept.count == 4 && kept.allSatisfy { $0 > 0 }, "kept \(kept)")
        let before = server.requests.count

        server.route("/big.bin", .serve(resource))
        let result = try sandbox.pull(["--json"], environment: Self.segmented)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(sandbox.finalContent("big.bin") == resource.allBytes)
        #expect(Set(server.requests.dropFirst(before).compactMap(\.range)) == Self.continuations(of: kept), "kept \(kept)")
        #expect(result.stdout.contains("\"bytes_transferred\":\(Self.size - kept.reduce(0, +))"), "kept \(kept)")
    }

    /// A pull of `resource` in segments from `server`, sending 32 KiB every 50 ms, stopped by `signal`
    /// once the record names bytes in a segment after the first: the run, and the bytes each segment kept.
    static func stoppedPull(
        by signal: Int32, sandbox: Sandbox, server: FaultServer, resource: FaultResource
    ) throws -> (run: RunResult, kept: [Int]) {
        server.route("/big.bin", FaultBehavior.serve(resource).slow(chunkSize: 32_768, delay: 0.05))
        sandbox.add("big.bin", resource, url: server.url("big.bin"))
        _ = try sandbox.manifest()
        let running = try AssetSyncBinary.start(
            ["pull", sandbox.manifestPath, "--dest", sandbox.dest], environment: Sandbox.environment(Self.segmented))
        let progressed = waitUntil(timeout: 60) { Self.segmentsDone(in: sandbox).dropFirst().contains { $0 > 0 } }
        running.signal(signal)
        let run = try running.wait()
        try #require(progressed, "no segment progress recorded")
        return (run, Self.segmentsDone(in: sandbox))
    }

    /// The ranges a run continuing segments that kept `kept` bytes asks for: each from where its
    /// bytes end, none for a segment done.
    static func continuations(of kept: [Int]) -> Set<String> {
        Set(kept.enumerated().compactMap { index, done -> String? in
            let start = index << 20
            return done == 1 << 20 ? nil : "bytes=\(start + done)-\(start + (1 << 20) - 1)"
        })
    }

    /// Bytes done per segment, as the partial's resume record says; empty without one.
    static func segmentsDone(in sandbox: Sandbox) -> [Int] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: sandbox.partialDirectory)) ?? []
        guard let name = names.first(where: { $0.hasSuffix(".resume") }),
              let text = try? String(contentsOfFile: sandbox.partialDirectory + "/" + name, encoding: .utf8),
              let line = text.split(separator: "\n").first(where: { $0.hasPrefix("segments") })
        else { return [] }
        return line.drop { $0 != "=" && $0 != " " }.dropFirst().split(separator: ",").compactMap { $0.split(separator: "+").last.flatMap { Int($0) } }
    }
}
