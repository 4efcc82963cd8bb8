import Foundation
import Glibc
import Testing
import TestSupport

/// Resume records across runs (issue 10, item 5): a file below the resume threshold (256 KiB by
/// default) keeps none and starts again from zero after a crash; a larger one still resumes.
@Suite struct ResumeThresholdTests {
    @Test("item 5: after kill -9, a file below the resume threshold restarts from zero; one above resumes with Range")
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
        let bothStalled = waitUntil(timeout: 30) {
            sandbox.partialSizes().filter { $0 == 100_000 }.count == 2 && sandbox.partialNames().contains { $0.hasSuffix(".resume") }
        }
        running.signal(SIGKILL)
        _ = try running.wait()
        try #require(bothStalled, "the partials were \(sandbox.partialNames()) of \(sandbox.partialSizes()) bytes")
        #expect(sandbox.partialNames().filter { $0.hasSuffix(".resume") }.count == 1)  // the large file's only

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
