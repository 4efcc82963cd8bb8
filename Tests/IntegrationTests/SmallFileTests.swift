import Foundation
import Glibc
import Testing
import TestSupport

/// What a small file costs: below the resume threshold (256 KiB by default) a
/// file keeps no resume record, so a new one costs one create and one rename, and starts again
/// from zero after a crash; a larger file still keeps its record and resumes.
@Suite struct SmallFileTests {
    @Test(
        "each new small file costs one create and one rename, no ftruncate and no resume record; a large one keeps its record",
        .enabled(if: FileManager.default.isExecutableFile(atPath: PullSchedulingTests.strace), "needs strace"))
    func oneCreateAndOneRenamePerSmallFile() throws {
        var files: [String: Data] = ["large.bin": PullNginxTests.random(300_000)]
        for index in 0..<20 { files["f\(index).bin"] = PullNginxTests.random(65_536) }
        let sandbox = try Sandbox(serving: files)
        let nginx = try NginxServer(root: sandbox.served)
        defer { nginx.stop() }
        let manifest = try sandbox.manifest(base: nginx.baseURL)
        let work = try TemporaryDirectory()
        let log = work.path + "/strace"
        let result = try AssetSyncBinary.run(
            ["pull", manifest, "--dest", sandbox.dest],
            prefix: [PullSchedulingTests.strace, "-f", "-qq", "-o", log, "-e", "trace=openat,renameat,ftruncate,unlinkat"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try sandbox.cached() == sandbox.expected)
        let calls = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n")
        /// The calls to `call` whose line holds every one of `words`.
        func count(_ call: String, _ words: String...) -> Int {
            calls.filter { line in line.contains(call + "(") && words.allSatisfy { line.contains($0) } }.count
        }
        #expect(count("openat", ".part\"", "O_CREAT") == 21)  // one create per file
        #expect(count("renameat", ".part\"") == 21)  // one rename per file, into place
        #expect(count("ftruncate") == 1)  // the lock file's only: new partials are empty already
        #expect(count("openat", ".resume", "O_CREAT") == 1)  // the large file's record only
        #expect(count("renameat", ".resume\"") == 1)
    }

    @Test("after kill -9, a file below the resume threshold restarts from zero; one above resumes with Range")
    func killedSmallAndLargeFiles() throws {
        let sandbox = try Sandbox()
        defer { sandbox.checkInvariants() }
        let server = try FaultServer()
        defer { server.stop() }
        let small = FaultResource.pattern(size: 200_000, seed: 50)
        let large = FaultResource.pattern(size: 400_000, seed: 51)
        // Each first response stops after 100,000 bytes and holds the connection open until the kill;
        // the next one is served as asked.
        for (name, resource) in [("small.bin", small), ("large.bin", large)] {
            server.route("/" + name, .sequence([.serve(resource).stalled(after: 100_000, for: 60), .serve(resource)]))
            sandbox.add(name, resource, url: server.url(name))
        }
        try sandbox.manifest()
        let running = try AssetSyncBinary.start(
            ["pull", sandbox.manifestPath, "--dest", sandbox.dest], environment: Sandbox.environment([:]))
        // The small file's bytes are held in memory until proven: only the large one has a partial.
        let bothStalled = waitUntil(timeout: 30) {
            server.requests(to: "/small.bin").count == 1 && sandbox.partialSizes().contains(100_000)
                && sandbox.partialNames().contains { $0.hasSuffix(".resume") }
        }
        running.signal(SIGKILL)
        _ = try running.wait()
        try #require(bothStalled, "the partials were \(sandbox.partialNames()) of \(sandbox.partialSizes()) bytes")
        #expect(sandbox.partialNames().count == 2)  // the large file's partial and record only
        #expect(sandbox.partialNames().filter { $0.hasSuffix(".resume") }.count == 1)

        let next = try sandbox.pull()
        #expect(next.status == 0, "\(next.stderr)")
        #expect(sandbox.finalContent("small.bin") == small.allBytes)
        #expect(sandbox.finalContent("large.bin") == large.allBytes)
        let smallRequests = server.requests(to: "/small.bin")
        let largeRequests = server.requests(to: "/large.bin")
        try #require(smallRequests.count == 2 && largeRequests.count == 2)
        #expect(smallRequests[1].range == nil)
        #expect(largeRequests[1].range == "bytes=100000-" && largeRequests[1].ifRange != nil)
        #expect(sandbox.partialNames().isEmpty)
    }
}
