import Foundation
import Glibc
import Testing
import TestSupport

/// Small files wait for their retries without holding the writer pool's buffers (found by the
/// soak): the pool has a buffer for each running download and each writer lane, and a small file
/// keeps its bytes in one while it downloads. When more small files than that waited for a retry with
/// bytes received, the transfer thread waited for ever for a buffer inside libcurl's write callback.
@Suite struct SmallFileRetryTests {
    /// Twelve small files whose first responses are cut after 5,000 of 20,000 bytes, two at a time, each
    /// retry one to two seconds away: six of them wait with bytes (as many as the pool has buffers with
    /// `--jobs 2`) before the next one starts. Every file resumes where it stopped, and the pull ends.
    @Test func moreSmallFilesWaitingWithBytesThanPoolBuffers() throws {
        let sandbox = try Sandbox()
        defer { sandbox.checkInvariants() }
        let server = try FaultServer()
        defer { server.stop() }
        let paths = (1...12).map { "f\($0).bin" }
        for (index, path) in paths.enumerated() {
            let resource = FaultResource.pattern(size: 20_000, seed: UInt64(index + 1))
            server.route(path, .failing(1, with: .serve(resource).truncated(after: 5_000), then: .serve(resource)))
            sandbox.add(path, resource, url: server.url(path))
        }
        try sandbox.manifest()
        let running = try AssetSyncBinary.start(
            ["pull", sandbox.manifestPath, "--dest", sandbox.dest, "--jobs", "2"], directory: sandbox.root.url,
            environment: Sandbox.environment(["ASSETSYNC_RETRY_DELAY": "2"]))
        let result = try running.wait(timeout: 30)
        #expect(result.status == 0, "\(result.stderr)")
        for path in paths {
            let requests = server.requests(to: path)
            #expect(requests.map(\.range) == [nil, "bytes=5000-"], "\(path): \(requests.map(\.target))")
            #expect(sandbox.finalContent(path) == sandbox.expected[path])
        }
    }
}
