import Foundation
import Glibc
import Testing
import TestSupport

/// A changed file with a chunk list is assembled from the chunks its old version in DEST
/// shares, and only the rest is fetched, with `Range` requests guarded by `If-Range`; every way the
/// delta can go wrong (Range ignored, another version answered, a chunk list that lies) ends in a
/// full download, and an interrupted delta resumes without fetching again what it has.
@Suite struct DeltaPullTests {
    static let size = 16 << 20

    /// The old version and a new one: 200 KiB inserted at 3 MiB, 64 KiB overwritten at 11 MiB. Seeded,
    /// so that the chunk boundaries, and so the ranges fetched, are the same on every run (random bytes
    /// could, now and then, need more than the 8 MiB between the changes to find the old boundaries
    /// again, and make one range of both).
    static func versions() -> (old: Data, new: Data) {
        var generator = SeededGenerator(seed: 14)
        func bytes(_ count: Int) -> Data {
            Data((0..<(count / 8)).map { _ in generator.next() }.withUnsafeBytes { Array($0) })
        }
        let old = bytes(size)
        var new = old
        new.replaceSubrange((11 << 20)..<((11 << 20) + (64 << 10)), with: bytes(64 << 10))
        new.insert(contentsOf: bytes(200 << 10), at: 3 << 20)
        return (old, new)
    }

    /// The chunk list `assetsync manifest --chunks` writes for `data`.
    static func chunks(of data: Data) throws -> String {
        let directory = try TemporaryDirectory()
        try data.write(to: directory.url.appendingPathComponent("f"))
        let made = try AssetSyncBinary.run(["manifest", directory.path, "--base", "http://127.0.0.1/", "--chunks", "--format", "json"])
        let manifest = try JSONSerialization.jsonObject(with: Data(made.stdout.utf8)) as! [String: Any]
        let files = manifest["files"] as! [[String: Any]]
        return try #require(files.first?["chunks"] as? String, "\(made.stderr)")
    }

    /// The `done` event of the run's JSON output.
    static func done(_ stdout: String) throws -> [String: Any] {
        try #require(try LocalReuseTests.events(stdout, "done").first)
    }

    @Test func nginxServesOnlyTheChangedChunks() throws {
        let (old, new) = Self.versions()
        let sandbox = try Sandbox(serving: ["pack.bin": old])
        defer { sandbox.checkInvariants() }
        let nginx = try NginxServer(root: sandbox.served)
        defer { nginx.stop() }
        _ = try sandbox.manifest(base: nginx.baseURL)
        let first = try sandbox.pull([])  // the old version, downloaded whole
        #expect(first.status == 0, "\(first.stderr)")
        nginx.clearAccessLog()

        try sandbox.writeServed("pack.bin", new)
        sandbox.add("pack.bin", new, url: nil, chunks: try Self.chunks(of: new))
        let second = try sandbox.pull(["--json"])
        #expect(second.status == 0, "\(second.stderr)")
        #expect(sandbox.finalContent("pack.bin") == new)
        #expect(sandbox.partialNames().isEmpty)
        let log = nginx.settledAccessLog()
        let fetched = log.map(\.bodyBytesSent).reduce(0, +)
        print("delta of \(new.count) bytes: \(log.count) requests, \(fetched) bytes fetched (not asserted beyond the bounds)")
        // Two changes touch a few chunks of about 1 MiB (at most 4 MiB each): far less than the file.
        #expect((1...4).contains(log.count), "\(log.map(\.range))")
        #expect(fetched >= 264 << 10 && fetched <= 8 << 20, "\(fetched)")
        #expect(log.allSatisfy { $0.status == 206 && $0.range != nil && $0.completed })
        // The first range names the version; the others ask for it.
        #expect(log.first?.ifRange == nil && log.dropFirst().allSatisfy { $0.ifRange != nil })
        let done = try Self.done(second.stdout)
        #expect(done["bytes_transferred"] as? Int == fetched)
        #expect(done["reused_bytes"] as? Int == new.count - fetched)
        #expect(done["action"] as? String == "updated")
        let summary = try #require(try LocalReuseTests.events(second.stdout, "summary").first)
        #expect(summary["bytes_reused"] as? Int == new.count - fetched)
        // The next run finds the file current from its state record alone.
        let third = try sandbox.pull([])
        #expect(third.stderr.hasPrefix("0 new, 0 updated, 1 current, 0 failed; 0 B transferred in "), "\(third.stderr)")
    }

    /// A sandbox whose DEST holds `old` at `pack.bin` (as an earlier run, or anything else, left it),
    /// and a fault server answering for `pack.bin` by `behavior`; the manifest lists `new` with `chunks`.
    static func serving(_ new: Data, by behavior: FaultBehavior, chunks: String, over old: Data) throws -> (Sandbox, FaultServer) {
        let sandbox = try Sandbox()
        let server = try FaultServer()
        server.route("/pack.bin", behavior)
        try FileManager.default.createDirectory(atPath: sandbox.dest, withIntermediateDirectories: true)
        try old.write(to: URL(fileURLWithPath: sandbox.dest + "/pack.bin"))
        sandbox.add("pack.bin", new, url: server.url("pack.bin"), chunks: chunks)
        return (sandbox, server)
    }

    /// Pulls `sandbox` with `options`, expecting success and `new` at `pack.bin`.
    static func pull(
        _ sandbox: Sandbox, expecting new: Data, _ options: [String], sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> RunResult {
        let result = try sandbox.pull(options)
        #expect(result.status == 0, "\(result.stderr)", sourceLocation: sourceLocation)
        #expect(sandbox.finalContent("pack.bin") == new, sourceLocation: sourceLocation)
        return result
    }

    /// The value of `key` in the partial's resume record; nil without one.
    static func recordField(_ key: String, in sandbox: Sandbox) -> Substring? {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: sandbox.partialDirectory)) ?? []
        guard let name = names.first(where: { $0.hasSuffix(".resume") }),
              let text = try? String(contentsOfFile: sandbox.partialDirectory + "/" + name, encoding: .utf8),
              let line = text.split(separator: "\n").first(where: { $0.hasPrefix(key) })
        else { return nil }
        return line.drop { $0 != "=" && $0 != " " }.dropFirst()
    }

    /// The segments of the partial's resume record: each range and the bytes done from its start.
    static func recordedSegments(in sandbox: Sandbox) -> [(range: Range<Int>, done: Int)] {
        guard let line = recordField("segments", in: sandbox) else { return [] }
        return line.split(separator: ",").compactMap { item in
            let parts = item.split(whereSeparator: { $0 == "-" || $0 == "+" }).compactMap { Int($0) }
            return parts.count == 3 ? (parts[0]..<parts[1], parts[2]) : nil
        }
    }

    @Test func aServerIgnoringRangeGetsAFullDownload() throws {
        let (old, new) = Self.versions()
        let (sandbox, server) = try Self.serving(
            new, by: .ignoringRange(.data(new, etag: "\"v2\"")), chunks: try Self.chunks(of: new), over: old)
        defer {
            server.stop()
            sandbox.checkInvariants()
        }
        let result = try Self.pull(sandbox, expecting: new, ["--json"])
        // The first range is answered with the whole file: the file comes again as one stream.
        let requests = server.requests
        #expect(requests.count == 2, "\(requests.map(\.range))")
        #expect(requests.first?.range != nil && requests.first?.responseStatus == 200)
        #expect(requests.last?.range == nil && requests.last?.completed == true)
        #expect(try Self.done(result.stdout)["reused_bytes"] as? Int == 0)
    }

    /// A delta's ranges answered in a way no range can use: one byte off, 416, or as
    /// `multipart/byteranges`; a plain GET gets the whole file.
    @Test(arguments: ["wrong Content-Range", "416", "multipart/byteranges"])
    func anUnusableRangeAnswerGetsAFullDownload(_ fault: String) throws {
        let (old, new) = Self.versions()
        let resource = FaultResource.data(new, etag: "\"v2\"")
        let behavior: FaultBehavior = switch fault {
        case "wrong Content-Range": .wrongContentRange(resource, shift: 1)
        case "416": .rangeNotSatisfiable(resource)
        default: .multipartRanges(resource)
        }
        let (sandbox, server) = try Self.serving(new, by: behavior, chunks: try Self.chunks(of: new), over: old)
        defer {
            server.stop()
            sandbox.checkInvariants()
        }
        let result = try Self.pull(sandbox, expecting: new, ["--json"])
        #expect(sandbox.partialNames().isEmpty)
        // The first range's answer ends the delta before its other ranges are asked: one whole GET follows.
        let requests = server.requests
        #expect(requests.count == 2, "\(requests.map { ($0.range, $0.responseStatus) }) \(result.stderr)")
        #expect(requests.first?.range != nil && requests.first?.responseStatus == (fault == "416" ? 416 : 206))
        #expect(requests.last?.range == nil && requests.last?.responseStatus == 200 && requests.last?.completed == true)
        #expect(requests.last?.bodyBytesSent == new.count)
        #expect(result.stderr.contains("; downloading as one stream"), "\(result.stderr)")
        let done = try Self.done(result.stdout)
        #expect(done["reused_bytes"] as? Int == 0 && done["bytes_transferred"] as? Int ?? 0 >= new.count)
    }

    @Test func anIfRangeAnsweredWithTheWholeFileGetsAFullDownload() throws {
        let (old, new) = Self.versions()
        // The first range names version "a"; then the server holds version "b", so If-Range "a" fails.
        let (first, later) = (FaultResource.data(new, etag: "\"a\""), FaultResource.data(new, etag: "\"b\""))
        let versions = FaultBehavior.custom { request in FaultRange.respond(request.attempt == 1 ? first : later, to: request) }
        let (sandbox, server) = try Self.serving(new, by: versions, chunks: try Self.chunks(of: new), over: old)
        defer {
            server.stop()
            sandbox.checkInvariants()
        }
        let result = try Self.pull(sandbox, expecting: new, [])
        let requests = server.requests
        try #require(requests.count == 3, "\(requests.map { ($0.range, $0.ifRange, $0.responseStatus) }) \(result.stderr)")
        #expect(requests[1].ifRange == "\"a\"" && requests[1].responseStatus == 200)
        #expect(requests.last?.range == nil && requests.last?.completed == true)
        #expect(result.stderr.contains("the file changed on the server between its segments; downloading as one stream"), "\(result.stderr)")
        #expect(result.stderr.contains("updated  pack.bin (16.2 MiB)\n"), "\(result.stderr)")
    }

    @Test func aChunkListThatLiesFailsTheProofAndGetsAFullDownload() throws {
        let old = Self.versions().old
        var new = old
        for offset in [1 << 20, 9 << 20] { new[offset] ^= 0xFF }
        // The old version's list: every chunk claims to be one the old file has, two of them falsely.
        let (sandbox, server) = try Self.serving(new, by: .serve(.data(new, etag: "\"v2\"")), chunks: try Self.chunks(of: old), over: old)
        defer {
            server.stop()
            sandbox.checkInvariants()
        }
        let result = try Self.pull(sandbox, expecting: new, ["--json"])
        let requests = server.requests
        #expect(requests.count == 1 && requests[0].range == nil && requests[0].completed, "\(requests.map(\.range))")
        #expect(try Self.done(result.stdout)["reused_bytes"] as? Int == 0)
    }

    /// `chunks` with the hash of the chunk holding byte `offset` changed: a list that lies about one chunk.
    static func lying(_ chunks: String, aboutByte offset: Int) throws -> String {
        let (sizes, packed) = (chunks.prefix { $0 != ":" }, chunks.drop { $0 != ":" }.dropFirst())
        var bytes = try #require(Data(base64Encoded: String(packed)))
        var start = 0
        for index in 0..<(bytes.count / 20) {
            let length = bytes[(index * 20)..<(index * 20 + 4)].reduce(0) { $0 << 8 | Int($1) }
            if offset < start + length {
                bytes[index * 20 + 4] ^= 0xFF
                break
            }
            start += length
        }
        return sizes + ":" + bytes.base64EncodedString()
    }

    @Test func aFetchedChunkWhoseHashLiesFailsTheProofThoughTheCRCAgrees() throws {
        let (old, new) = Self.versions()
        // The chunk around the overwrite at 11 MiB (shifted by the insertion) is fetched, right, but listed wrong.
        let chunks = try Self.lying(try Self.chunks(of: new), aboutByte: (11 << 20) + (200 << 10) + 1000)
        let (sandbox, server) = try Self.serving(new, by: .serve(.data(new, etag: "\"v2\"")), chunks: chunks, over: old)
        defer {
            server.stop()
            sandbox.checkInvariants()
        }
        let result = try Self.pull(sandbox, expecting: new, [])
        #expect(result.stderr.contains("does not have the SHA-256 the chunk list gives; downloading as one stream"), "\(result.stderr)")
        let requests = server.requests
        #expect(requests.count >= 2 && requests.last?.range == nil && requests.last?.completed == true, "\(requests.map(\.range))")
    }

    @Test func anInterruptedDeltaResumesWithoutFetchingWhatItHas() throws {
        let (old, new) = Self.versions()
        let resource = FaultResource.data(new, etag: "\"v2\"")
        let slow = FaultBehavior.serve(resource).slow(chunkSize: 32_768, delay: 0.05)
        let (sandbox, server) = try Self.serving(new, by: slow, chunks: try Self.chunks(of: new), over: old)
        defer {
            server.stop()
            sandbox.checkInvariants()
        }
        _ = try sandbox.manifest()
        let running = try AssetSyncBinary.start(["pull", sandbox.manifestPath, "--dest", sandbox.dest])
        // Killed once the record names fetched bytes in a range that is not complete.
        let progressed = waitUntil(timeout: 60) {
            Self.recordedSegments(in: sandbox).contains { $0.done > 0 && $0.done < $0.range.count }
        }
        running.signal(SIGKILL)
        _ = try running.wait()
        try #require(progressed, "no fetched bytes recorded")
        let kept = Self.recordedSegments(in: sandbox)
        let reused = Self.recordField("reused", in: sandbox).flatMap { Int($0) }
        let before = server.requests.count

        server.route("/pack.bin", .serve(resource))
        let result = try sandbox.pull(["--json"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(sandbox.finalContent("pack.bin") == new, "\(result.stderr) \(result.stdout)")
        let resumed = server.requests.dropFirst(before)
        #expect(resumed.allSatisfy { $0.ifRange == resource.etag }, "\(resumed.map(\.range))")
        // Each range asks from where its kept bytes end; copied and complete ones are not asked for.
        let expected = kept.filter { $0.done < $0.range.count }.map { "bytes=\($0.range.lowerBound + $0.done)-\($0.range.upperBound - 1)" }
        #expect(Set(resumed.compactMap(\.range)) == Set(expected), "kept \(kept)")
        #expect(resumed.count == expected.count)
        let done = try Self.done(result.stdout)
        #expect(done["bytes_transferred"] as? Int == resumed.map(\.bodyBytesSent).reduce(0, +))
        #expect(reused != nil && done["reused_bytes"] as? Int == reused)
    }

    /// Makes `path` a file of `size` bytes: sparse (`truncate`, holes cost nothing on ext4 or tmpfs) or
    /// allocated (`posix_fallocate`: blocks reserved, none written, read back as zeros at memory speed).
    static func extend(_ path: String, to size: Int, allocated: Bool) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
        try #require(fd >= 0)
        defer { close(fd) }
        try #require(allocated ? posix_fallocate(fd, 0, off_t(size)) == 0 : ftruncate(fd, off_t(size)) == 0, "\(path): \(errno)")
    }

    /// The bytes process `pid` has read so far (`rchar` of `/proc/PID/io`: every `read` and `pread`,
    /// holes and the page cache included); nil once it has gone.
    static func bytesRead(by pid: Int32) -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/io", encoding: .utf8) else { return nil }
        return text.split(separator: "\n").first { $0.hasPrefix("rchar:") }.flatMap { Int($0.dropFirst("rchar:".count).trimmingCharacters(in: .whitespaces)) }
    }

    @Test func anOldVersionFarLargerThanTheEntryIsNotReadAndTheFileIsDownloadedWhole() throws {
        let (old, new) = Self.versions()
        let (sandbox, server) = try Self.serving(new, by: .serve(.data(new, etag: "\"v2\"")), chunks: try Self.chunks(of: new), over: old)
        defer {
            server.stop()
            sandbox.checkInvariants()
        }
        // The old version's bytes, then 8 GiB of holes: it shares most chunks, but is far larger than the new file.
        try Self.extend(sandbox.dest + "/pack.bin", to: 8 << 30, allocated: false)
        let started = Date()
        let result = try Self.pull(sandbox, expecting: new, ["--json"])
        let seconds = Date().timeIntervalSince(started)
        // Cut, it would have been a delta of a few ranges; by its size, it is one whole GET.
        let requests = server.requests
        #expect(requests.count == 1 && requests.first?.range == nil && requests.first?.completed == true, "\(requests.map(\.range))")
        #expect(try Self.done(result.stdout)["reused_bytes"] as? Int == 0)
        // Reading and cutting the 8 GiB takes tens of seconds; the whole run without it, well under one.
        #expect(seconds < 15, "\(seconds) s")
    }

    /// The old version cut here: large enough that cutting it to its end takes far longer than the bound
    /// below (40 s on the project's 2-core machine; 8 s even at 1 GB/s), and allocated, so it is cut.
    static let cutSize = 8 << 30

    @Test func aStopWhileTheOldVersionIsCutEndsTheRunAtOnce() throws {
        let sandbox = try Sandbox()
        let server = try FaultServer()
        defer { server.stop() }
        server.route("/pack.bin", .status(404))
        try FileManager.default.createDirectory(atPath: sandbox.dest, withIntermediateDirectories: true)
        try Self.extend(sandbox.dest + "/pack.bin", to: Self.cutSize, allocated: true)
        // A new version of 5 GiB, listed as chunks of 4 MiB: the old one is within twice its size, so it
        // is cut (and, of another size, not read for a CRC-32 first). No byte of it is ever fetched.
        var generator = SeededGenerator(seed: 15)
        let size = 5 << 30
        var packed = Data()
        for _ in 0..<(size >> 22) {
            packed += [0x00, 0x40, 0x00, 0x00]  // 4 MiB, big-endian
            packed += withUnsafeBytes(of: (generator.next(), generator.next())) { Data($0) }
        }
        let manifest = try sandbox.writeManifest([
            TestManifest.File(path: "pack.bin", size: size, crc32: "00000000", url: server.url("pack.bin"),
                              chunks: "262144,1048576,4194304:" + packed.base64EncodedString()),
        ], name: "large.json")
        let running = try AssetSyncBinary.start(["pull", manifest, "--dest", sandbox.dest])
        let cutting = waitUntil(timeout: 60) { (Self.bytesRead(by: running.pid) ?? 0) >= 256 << 20 }
        if !cutting { running.signal(SIGKILL) }
        try #require(cutting, "the old version was not read: \(running.stderrSoFar)")
        running.signal(SIGTERM)
        let stopped = Date()
        var read = 0
        while running.process.isRunning {
            read = Self.bytesRead(by: running.pid) ?? read
            usleep(20_000)
        }
        let result = try running.wait()
        let seconds = Date().timeIntervalSince(stopped)
        #expect(result.status == 130, "\(result.stderr)")
        #expect(seconds < 10, "the stop was heeded only after \(seconds) s")
        #expect(read < Self.cutSize / 2, "\(read) bytes read: the old version was cut to its end after the stop")
        #expect(server.requests.isEmpty)
        var status = stat()
        #expect(stat(sandbox.dest + "/pack.bin", &status) == 0 && Int(status.st_size) == Self.cutSize, "the old version is left as it was")
    }
}
