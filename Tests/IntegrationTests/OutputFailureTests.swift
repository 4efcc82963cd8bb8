import Foundation
import Glibc
import Testing
import TestSupport

/// What a failed write to standard output does. `plan`, `manifest`
/// and the help, whose product is their output, exit 3 with a message (a reader that went away
/// included); `pull --json` keeps pulling, and exits 3 only for a write error other than EPIPE.
@Suite struct OutputFailureTests {
    /// Runs the binary with its standard output on `/dev/full`, where every write fails with ENOSPC.
    private static let intoDevFull = ["/bin/sh", "-c", "exec \"$0\" \"$@\" > /dev/full"]

    /// Opens once, for every thread waiting on it: the server holds its answers until the test
    /// has closed its end of the pipe.
    private final class Gate: @unchecked Sendable {
        private let condition = NSCondition()
        private var isOpen = false

        func wait() {
            condition.lock()
            while !isOpen { condition.wait() }
            condition.unlock()
        }

        func open() {
            condition.lock()
            isOpen = true
            condition.broadcast()
            condition.unlock()
        }
    }

    @Test("pull --json into a reader that closes after one line still commits every file, exit 0")
    func closedStdoutStopsTheEventsNotThePull() throws {
        let server = try FaultServer()
        defer { server.stop() }
        let gate = Gate()
        defer { gate.open() }
        let sandbox = try Sandbox()
        for (index, name) in ["a.bin", "b.bin", "dir/c.bin"].enumerated() {
            let resource = FaultResource.pattern(size: 40_000 + index, seed: UInt64(index + 1))
            server.route(name, .custom { request in
                gate.wait()
                return FaultRange.respond(resource, to: request)
            })
            sandbox.add(name, resource, url: server.url(name))
        }
        try sandbox.manifest()
        let pipe = Pipe()
        let running = try AssetSyncBinary.start(
            ["pull", sandbox.manifestPath, "--dest", sandbox.dest, "--json"],
            environment: Sandbox.environment([:]), standardOutput: pipe.fileHandleForWriting)
        try pipe.fileHandleForWriting.close()
        var firstLine = Data()
        while let byte = try pipe.fileHandleForReading.read(upToCount: 1), !byte.isEmpty {
            firstLine += byte
            if byte == Data("\n".utf8) { break }
        }
        try pipe.fileHandleForReading.close()
        gate.open()  // every event from here on meets a closed pipe
        let result = try running.wait()

        #expect(String(decoding: firstLine, as: UTF8.self).hasPrefix(#"{"type":"plan","files":3,"#))
        #expect(running.process.terminationReason == .exit)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("3 new, 0 updated, 0 current, 0 failed"))
        for (path, content) in sandbox.expected {
            #expect(FileManager.default.contents(atPath: sandbox.dest + "/" + path) == content, "\(path) was not committed")
        }
    }

    @Test("manifest into a full disk exits 3 naming standard output")
    func manifestIntoAFullDisk() throws {
        let work = try TemporaryDirectory()
        try Data(count: 100).write(to: work.url.appendingPathComponent("a.bin"))
        let result = try AssetSyncBinary.run(["manifest", work.path, "--base", "http://127.0.0.1/"], prefix: Self.intoDevFull)
        #expect(result.status == 3)
        #expect(result.stderr == "Error: cannot write the manifest to standard output: No space left on device.\n")
    }

    @Test("plan and plan --json into a full disk exit 3 naming standard output", arguments: [[], ["--json"]])
    func planIntoAFullDisk(_ json: [String]) throws {
        let work = try TemporaryDirectory()
        let manifest = try TestManifest.write([TestManifest.File(path: "a", size: 5, crc32: "00000000")], base: "http://127.0.0.1:9/", in: work)
        let result = try AssetSyncBinary.run(["plan", manifest, "--dest", work.path + "/dest"] + json, prefix: Self.intoDevFull)
        #expect(result.status == 3)
        #expect(result.stderr == "Error: cannot write the plan to standard output: No space left on device.\n")
    }

    @Test("plan into a pipe whose reader is gone exits 3: its output is its product")
    func planIntoAClosedPipe() throws {
        let work = try TemporaryDirectory()
        let manifest = try TestManifest.write([TestManifest.File(path: "a", size: 5, crc32: "00000000")], base: "http://127.0.0.1:9/", in: work)
        let pipe = Pipe()
        try pipe.fileHandleForReading.close()
        let running = try AssetSyncBinary.start(["plan", manifest, "--dest", work.path + "/dest"], standardOutput: pipe.fileHandleForWriting)
        try pipe.fileHandleForWriting.close()
        let result = try running.wait()
        #expect(running.process.terminationReason == .exit)
        #expect(result.status == 3)
        #expect(result.stderr == "Error: cannot write the plan to standard output: Broken pipe.\n")
    }

    @Test("pull --json into a full disk commits the files, then exits 3 naming standard output")
    func pullJSONIntoAFullDisk() throws {
        let server = try FaultServer()
        defer { server.stop() }
        let sandbox = try Sandbox()
        let resource = FaultResource.pattern(size: 30_000)
        server.route("a.bin", .serve(resource))
        sandbox.add("a.bin", resource, url: server.url("a.bin"))
        try sandbox.manifest()
        let result = try AssetSyncBinary.run(
            ["pull", sandbox.manifestPath, "--dest", sandbox.dest, "--json"], environment: Sandbox.environment([:]),
            prefix: Self.intoDevFull)
        #expect(result.status == 3)
        #expect(result.stderr.hasSuffix("Error: cannot write the JSON events to standard output: No space left on device.\n"))
        #expect(FileManager.default.contents(atPath: sandbox.dest + "/a.bin") == resource.allBytes)
    }
}
