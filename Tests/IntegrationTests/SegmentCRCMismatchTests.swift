import Foundation
import Testing

/// A segmented file whose joined bytes fail their CRC becomes one stream, and its other segments end with it
/// (found by the soak, issue 11): they stayed among the running transfers, and one that ended after its file
/// was gone was taken for a whole file of its own, proven, and crashed the commit (a nil partial, SIGILL).
@Suite struct SegmentCRCMismatchTests {
    /// Four segments of 1 MiB: segment 2 comes slowly with a byte flipped, segment 3 sends all its bytes
    /// but declares more and stalls. Segment 2's end finds every byte in, the CRC wrong: the file is
    /// fetched again as one stream, which the server answers whole, and the pull succeeds.
    @Test func segmentStillRunningWhenItsFileBecomesOneStream() throws {
        let sandbox = try Sandbox()
        defer { sandbox.checkInvariants() }
        let server = try FaultServer()
        defer { server.stop() }
        let resource = FaultResource.pattern(size: PullSegmentTests.size, seed: 105)
        let flipped = resource.flippingByte(at: (2 << 20) + 5)
        let ranges = PullSegmentTests.segmentRanges
        server.route("/big.bin", .custom { request in
            switch request.range {
            case ranges[2]?:
                var response = FaultRange.respond(flipped, to: request)
                response.pacing = FaultResponse.Pacing(chunkSize: 64 << 10, delay: 0.05)
                return response
            case ranges[3]?:
                var response = FaultRange.respond(resource, to: request)
                response.framing = .contentLength((1 << 20) + 1000)
                response.cutoff = .stall(after: 1 << 20, seconds: 30, then: .close)
                return response
            default:
                return FaultRange.respond(resource, to: request)
            }
        })
        sandbox.add("big.bin", resource, url: server.url("big.bin"))
        let result = try sandbox.pull([], environment: PullSegmentTests.segmented.merging(["ASSETSYNC_STALL_TIMEOUT": "5"]) { $1 })
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("downloading as one stream"), "\(result.stderr)")
        #expect(sandbox.finalContent("big.bin") == resource.allBytes)
    }
}
