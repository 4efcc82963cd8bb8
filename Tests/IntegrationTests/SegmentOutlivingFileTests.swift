import Foundation
import Testing

/// A segmented file's segments end with it, whether it is proven or becomes one stream (found by the
/// soak): a segment with every byte in but its response not over stayed among the running transfers,
/// and once its file was gone it was taken for a file of its own: proven, it crashed the commit (a nil
/// partial, SIGILL); retried, it wrote through its descriptor into the file already committed.
@Suite struct SegmentOutlivingFileTests {
    /// Serves `resource` in four segments of 1 MiB: segment 2 slowly (from `segment2`, the same bytes
    /// unless a test flips one), segment 3 whole but declaring more and then stalling.
    static func behavior(_ resource: FaultResource, segment2: FaultResource) -> FaultBehavior {
        let ranges = PullSegmentTests.segmentRanges
        return .custom { request in
            switch request.range {
            case ranges[2]?:
                var response = FaultRange.respond(segment2, to: request)
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
        }
    }

    static let environment = PullSegmentTests.segmented.merging(["ASSETSYNC_STALL_TIMEOUT": "3"]) { $1 }

    /// Segment 2's end finds every byte in and the file proven while segment 3 still runs: the file is
    /// committed once, whole, and the pull succeeds without another request.
    @Test func segmentStillRunningWhenItsFileIsProven() throws {
        let sandbox = try Sandbox()
        defer { sandbox.checkInvariants() }
        let server = try FaultServer()
        defer { server.stop() }
        let resource = FaultResource.pattern(size: PullSegmentTests.size, seed: 106)
        server.route("/big.bin", Self.behavior(resource, segment2: resource))
        sandbox.add("big.bin", resource, url: server.url("big.bin"))
        let result = try sandbox.pull([], environment: Self.environment)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderrLines(startingWith: "retry").isEmpty, "\(result.stderr)")
        #expect(sandbox.finalContent("big.bin") == resource.allBytes)
        #expect(server.requests.count == 4, "\(server.requests.map(\.range))")
    }

    /// The same with a byte of segment 2 flipped: its end finds every byte in and the CRC wrong, and the
    /// file is fetched again as one stream, which the server answers whole.
    @Test func segmentStillRunningWhenItsFileBecomesOneStream() throws {
        let sandbox = try Sandbox()
        defer { sandbox.checkInvariants() }
        let server = try FaultServer()
        defer { server.stop() }
        let resource = FaultResource.pattern(size: PullSegmentTests.size, seed: 105)
        server.route("/big.bin", Self.behavior(resource, segment2: resource.flippingByte(at: (2 << 20) + 5)))
        sandbox.add("big.bin", resource, url: server.url("big.bin"))
        let result = try sandbox.pull([], environment: Self.environment)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("downloading as one stream"), "\(result.stderr)")
        #expect(sandbox.finalContent("big.bin") == resource.allBytes)
    }
}
