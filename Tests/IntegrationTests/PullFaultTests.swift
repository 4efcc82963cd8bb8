import Foundation
import Glibc
import Testing

extension Tag {
    /// `assetsync pull` against a hostile server.
    @Tag static var pullFaults: Self
}

/// `assetsync pull` against a `FaultServer` that breaks HTTP in one way per test: the exit code,
/// the file's stderr line, what the server saw, and the cache afterwards. Every test ends with
/// `PullSandbox.checkInvariants()`: final paths hold the manifest's bytes or nothing, and nothing
/// was written outside DEST.
///
/// Runs use `ASSETSYNC_RETRY_DELAY=0.05` (the sandbox's default), small files and loopback only.
@Suite(.tags(.pullFaults))
struct PullFaultTests {
    static let size = 100_000

    /// "new      a.bin (97.7 KiB)", the line a committed 100,000-byte file gets.
    static func newLine(_ path: String) -> String { "new      \(path) (97.7 KiB)" }

    // MARK: - 1–3 Broken bodies resume

    @Test func truncatedBodyResumesWithRangeAndIfRange() throws {
        let sandbox = try PullSandbox()
        defer { sandbox.checkInvariants() }
        let server = try FaultServer()
        defer { server.stop() }
        let resource = FaultResource.pattern(size: Self.size, seed: 1)
        server.route("/a.bin", .sequence([.serve(resource).truncated(after: 30_000), .serve(resource)]))
        sandbox.add("a.bin", resource, url: server.url("a.bin"))

        let result = try sandbox.pull()

        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderrLines.contains(Self.newLine("a.bin")))
        #expect(result.stderrLines(startingWith: "retry    a.bin: ").count == 1)
        #expect(result.stderrLines(startingWith: "failed").isEmpty)
        let requests = server.waitForResponses(2, to: "/a.bin")
        try #require(requests.count == 2)
        #expect(requests[0].range == nil && requests[0].ifRange == nil)
        #expect(requests[0].responseStatus == 200 && requests[0].bodyBytesSent == 30_000 && !requests[0].completed)
        #expect(requests[1].range == "bytes=30000-")
        #expect(requests[1].ifRange == resource.etag)
        #expect(requests[1].responseStatus == 206 && requests[1].bodyBytesSent == 70_000)
        #expect(sandbox.finalContent("a.bin") == resource.allBytes)
        #expect(sandbox.partialNames().isEmpty)
    }

    @Test func connectionResetMidBodyResumesWithRangeAndIfRange() throws {
        let sandbox = try PullSandbox()
        defer { sandbox.checkInvariants() }
        let server = try FaultServer()
        defer { server.stop() }
        let resource = FaultResource.pattern(size: Self.size, seed: 2)
        server.route("/a.bin", .sequence([.serve(resource).reset(after: 20_000), .serve(resource)]))
        sandbox.add("a.bin", resource, url: server.url("a.bin"))

        let result = try sandbox.pull()

        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderrLines.contains(Self.newLine("a.bin")))
        #expect(result.stderrLines(startingWith: "retry    a.bin: ").count == 1)
        let requests = server.waitForResponses(2, to: "/a.bin")
        try #require(requests.count == 2)
        #expect(requests[0].range == nil && requests[0].bodyBytesSent == 20_000 && !requests[0].completed)
        // A reset may drop bytes still in flight: the resume starts wherever the client's bytes end.
        let range = try #require(requests[1].range)
        let offset = try #require(Int(range.dropFirst("bytes=".count).dropLast()), "\(range)")
        #expect(range == "bytes=\(offset)-")
        #expect((1...20_000).contains(offset))
        #expect(requests[1].ifRange == resource.etag)
        #expect(requests[1].responseStatus == 206 && requests[1].bodyBytesSent == Self.size - offset)
        #expect(sandbox.finalContent("a.bin") == resource.allBytes)
    }

    @Test func stalledBodyHitsTheLowSpeedTimeoutThenResumes() throws {
        let sandbox = try PullSandbox()
        defer { sandbox.checkInvariants() }
        let server = try FaultServer()
        defer { server.stop() }
        let resource = FaultResource.pattern(size: Self.size, seed: 3)
        server.route("/a.bin", .sequence([.serve(resource).stalled(after: 25_000, for: 60), .serve(resource)]))
        sandbox.add("a.bin", resource, url: server.url("a.bin"))

        let started = ContinuousClock.now
        let result = try sandbox.pull(environment: ["ASSETSYNC_STALL_TIMEOUT": "1"])
        let elapsed = ContinuousClock.now - started

        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderrLines.contains(Self.newLine("a.bin")))
        let retries = result.stderrLines(startingWith: "retry    a.bin: ")
        #expect(retries.count == 1)
        let reason = retries.first?.lowercased() ?? ""
        #expect(["slow", "stall", "timeout", "timed out"].contains { reason.contains($0) }, "\(retries)")
        // The stalled response never ends until the server stops: read the records as they are.
        let requests = server.requests(to: "/a.bin")
        try #require(requests.count == 2)
        #expect(requests[0].range == nil && requests[0].bodyBytesSent == 25_000)
        #expect(requests[1].range == "bytes=25000-" && requests[1].ifRange == resource.etag)
        #expect(requests[1].responseStatus == 206)
        let gap = requests[1].instant - requests[0].instant
        #expect(gap >= .milliseconds(900), "resumed \(gap) after the stall began")  // the stall was waited out
        // A stall is timed from the last byte received (libcurl's own low-speed check averages over ~5 s
        // and reacted ~6 s late). Generous bound for a busy machine: 5 s.
        #expect(gap < .seconds(5), "the stall was detected \(gap) after it began, with a 1 s stall timeout")
        #expect(elapsed < .seconds(60))  // not the server's 60 s stall
        #expect(sandbox.finalContent("a.bin") == resource.allBytes)
    }

    // MARK: - 4 Bodies longer than the manifest's size

    @Test func longerBodyWithALongerContentLengthIsRefused() throws {
        let sandbox = try PullSandbox()
        defer { sandbox.checkInvariants() }
        let server = try FaultServer()
        defer { server.stop() }
        let resource = FaultResource.pattern(size: Self.size, seed: 4)
        server.route("/a.bin", .serve(resource).appendingBytes(500).declaringContentLength(Self.size + 500))
        let url = server.url("a.bin")
        sandbox.add("a.bin", resource, url: url)

        let result = try sandbox.pull()

        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderrLines(startingWith: "failed   a.bin: ")
            == ["failed   a.bin: the server announced more than the manifest's 100000 bytes (\(url))"])
        #expect(server.requests(to: "/a.bin").count == 1)
        #expect(sandbox.finalContent("a.bin") == nil)
        #expect(sandbox.partialSizes().allSatisfy { $0 <= Self.size })
    }

    @Test func longerCloseDelimitedBodyIsCutOffAndRefused() throws {
        let sandbox = try PullSandbox()
        defer { sandbox.checkInvariants() }
        let server = try FaultServer()
        defer { server.stop() }
        let resource = FaultResource.pattern(size: Self.size, seed: 5)
        server.route("/a.bin", .serve(resource).appendingBytes(500).closeDelimited())
        let url = server.url("a.bin")
        sandbox.add("a.bin", resource, url: url)

        let result = try sandbox.pull()

        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderrLines(startingWith: "failed   a.bin: ")
            == ["failed   a.bin: the server sent more than the manifest's 100000 bytes (\(url))"])
        let requests = server.waitForResponses(1, to: "/a.bin")
        #expect(requests.count == 1)
        #expect(requests.first?[header: "Content-Length"] == nil)
        #expect(sandbox.finalContent("a.bin") == nil)
        #expect(sandbox.partialSizes().allSatisfy { $0 <= Self.size })  // cut off at the size
    }

    @Test func longerChunkedBodyIsCutOffAndRefused() throws {
        let sandbox = try PullSandbox()
        defer { sandbox.checkInvariants() }
        let server = try FaultServer()
        defer { server.stop() }
        let resource = FaultResource.pattern(size: Self.size, seed: 6)
        server.route("/a.bin", .serve(resource).appendingBytes(500).chunked(chunkSize: 4_096))
        let url = server.url("a.bin")
        sandbox.add("a.bin", resource, url: url)

        let result = try sandbox.pull()

        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderrLines(startingWith: "failed   a.bin: ")
            == ["failed   a.bin: the server sent more than the manifest's 100000 bytes (\(url))"])
        #expect(server.requests(to: "/a.bin").count == 1)
        #expect(sandbox.finalContent("a.bin") == nil)
        #expect(sandbox.partialSizes().allSatisfy { $0 <= Self.size })
    }

    // MARK: - 5 Lying Content-Length

    @Test func rightContentLengthWithExtraBytesAfterItCommitsOnlyTheDeclaredBytes() throws {
        let sandbox = try PullSandbox()
        defer { sandbox.checkInvariants() }
        let server = try FaultServer()
        defer { server.stop() }
        let resource = FaultResource.pattern(size: Self.size, seed: 7)
        server.route("/a.bin", .serve(resource).appendingBytes(500))  // declares 100000, sends 100500
        sandbox.add("a.bin", resource, url: server.url("a.bin"))

        let result = try sandbox.pull()

        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderrLines.contains(Self.newLine("a.bin")))
        let requests = server.waitForResponses(1, to: "/a.bin")
        try #require(requests.count == 1)
        #expect(requests[0].bodyBytesSent == Self.size + 500)
        #expect(sandbox.finalContent("a.bin") == resource.allBytes)
    }

    @Test func rightContentLengthWithAShorterBodyRetriesAndResumes() throws {
        let sandbox = try PullSandbox()
        defer { sandbox.checkInvariants() }
        let server = try FaultServer()
        defer { server.stop() }
        let resource = FaultResource.pattern(size: Self.size, seed: 8)
        // The first answer declares 100000 bytes, sends 99000 and closes.
        let short = FaultResource.data(resource.bytes(in: 0..<99_000), etag: resource.etag)
        server.route("/a.bin", .sequence([.serve(short).declaringContentLength(Self.size), .serve(resource)]))
        sandbox.add("a.bin", resource, url: server.url("a.bin"))

        let result = try sandbox.pull()

        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderrLines.contains(Self.newLine("a.bin")))
        #expect(result.stderrLines(startingWith: "retry    a.bin: ").count == 1)
        let requests = server.waitForResponses(2, to: "/a.bin")
        try #require(requests.count == 2)
        #expect(requests[0].bodyBytesSent == 99_000)
        #expect(requests[1].range == "bytes=99000-" && requests[1].ifRange == resource.etag)
        #expect(requests[1].responseStatus == 206 && requests[1].bodyBytesSent == 1_000)
        #expect(sandbox.finalContent("a.bin") == resource.allBytes)
    }

    @Test func rightContentLengthWithAShorterBodyEveryTimeFailsWithoutCommitting() throws {
        let sandbox = try PullSandbox()
        defer { sandbox.checkInvariants() }
        let server = try FaultServer()
        defer { server.stop() }
        let resource = FaultResource.pattern(size: Self.size, seed: 9)
        let short = FaultResource.data(resource.bytes(in: 0..<99_000), etag: resource.etag)
        server.route("/a.bin", .serve(short).declaringContentLength(Self.size))
        sandbox.add("a.bin", resource, url: server.url("a.bin"))

        let result = try sandbox.pull(["--retries", "2"])

        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderrLines(startingWith: "failed   a.bin: ").count == 1)
        #expect(result.stderrLines(startingWith: "retry    a.bin: ").count == 2)
        #expect(server.requests(to: "/a.bin").count == 3)  // 1 + 2 retries
        #expect(sandbox.finalContent("a.bin") == nil)
        #expect(sandbox.partialSizes().allSatisfy { $0 <= 99_000 })
    }

    // MARK: - 6–8 A resume that the server does not honour restarts from zero

    @Test func serverIgnoringRangeRestartsFromZero() throws {
        let sandbox = try PullSandbox()
        defer { sandbox.checkInvariants() }
        let server = try FaultServer()
        defer { server.stop() }
        let resource = FaultResource.pattern(size: Self.size, seed: 10)
        server.route("/a.bin", .sequence([.serve(resource).truncated(after: 40_000), .ignoringRange(resource)]))
        sandbox.add("a.bin", resource, url: server.url("a.bin"))

        let result = try sandbox.pull()

        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderrLines.contains(Self.newLine("a.bin")))
        let requests = server.waitForResponses(2, to: "/a.bin")
        try #require(requests.count == 2)
        #expect(requests[1].range == "bytes=40000-" && requests[1].ifRange == resource.etag)
        #expect(requests[1].responseStatus == 200 && requests[1].bodyBytesSent == Self.size && requests[1].completed)
        #expect(sandbox.finalContent("a.bin") == resource.allBytes)
        #expect(sandbox.partialNames().isEmpty)
    }

    @Test func wrongContentRangeOnAResumeRestartsFromZero() throws {
        let sandbox = try PullSandbox()
        defer { sandbox.checkInvariants() }
        let server = try FaultServer()
        defer { server.stop() }
        let resource = FaultResource.pattern(size: Self.size, seed: 11)
        // Resumes are answered one byte off; a request without Range gets the whole file.
        server.route("/a.bin", .sequence([.serve(resource).truncated(after: 40_000), .wrongContentRange(resource, shift: 1)]))
        sandbox.add("a.bin", resource, url: server.url("a.bin"))

        let result = try sandbox.pull()

        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderrLines.contains(Self.newLine("a.bin")))
        #expect(result.stderrLines(startingWith: "retry    a.bin: ").contains {
            $0.hasPrefix("retry    a.bin: a resume was answered with Content-Range bytes 40001-99999/100000; restarting from zero")
        }, "\(result.stderr)")
        let requests = server.waitForResponses(3, to: "/a.bin")
        try #require(requests.count == 3)
        #expect(requests[1].range == "bytes=40000-" && requests[1].responseStatus == 206)
        #expect(requests[2].range == nil && requests[2].ifRange == nil)
        #expect(requests[2].responseStatus == 200 && requests[2].bodyBytesSent == Self.size)
        #expect(sandbox.finalContent("a.bin") == resource.allBytes)
    }

    @Test func rangeNotSatisfiableOnAResumeRestartsFromZero() throws {
        let sandbox = try PullSandbox()
        defer { sandbox.checkInvariants() }
        let server = try FaultServer()
        defer { server.stop() }
        let resource = FaultResource.pattern(size: Self.size, seed: 12)
        server.route("/a.bin", .sequence([.serve(resource).truncated(after: 40_000), .rangeNotSatisfiable(resource)]))
        sandbox.add("a.bin", resource, url: server.url("a.bin"))

        let result = try sandbox.pull()

        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderrLines.contains(Self.newLine("a.bin")))
        #expect(result.stderrLines(startingWith: "retry    a.bin: ").contains {
            $0.hasPrefix("retry    a.bin: HTTP 416 (range not satisfiable); restarting from zero")
        }, "\(result.stderr)")
        let requests = server.waitForResponses(3, to: "/a.bin")
        try #require(requests.count == 3)
        #expect(requests[1].range == "bytes=40000-" && requests[1].responseStatus == 416)
        #expect(requests[2].range == nil && requests[2].responseStatus == 200 && requests[2].bodyBytesSent == Self.size)
        #expect(sandbox.finalContent("a.bin") == resource.allBytes)
    }

    // MARK: - 9–12 Statuses

    @Test func notFoundIsFinalWithoutRetries() throws {
        let sandbox = try PullSandbox()
        defer { sandbox.checkInvariants() }
        let server = try FaultServer()
        defer { server.stop() }
        let resource = FaultResource.pattern(size: Self.size, seed: 13)
        server.route("/a.bin", .notFound)
        let url = server.url("a.bin")
        sandbox.add("a.bin", resource, url: url)

        let result = try sandbox.pull()

        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderrLines(startingWith: "failed   a.bin: ") == ["failed   a.bin: HTTP 404 (\(url))"])
        #expect(result.stderrLines(startingWith: "retry").isEmpty)
        #expect(result.stderrLines.contains("  a.bin: HTTP 404 (\(url))"))  // in the summary's "Failed:" list
        #expect(server.requests(to: "/a.bin").count == 1)
        #expect(server.requests.count == 1)
        #expect(sandbox.finalContent("a.bin") == nil)
        #expect(sandbox.partialNames().isEmpty)
    }

    @Test func serverErrorIsRetriedThenSucceeds() throws {
        let sandbox = try PullSandbox()
        defer { sandbox.checkInvariants() }
        let server = try FaultServer()
        defer { server.stop() }
        let resource = FaultResource.pattern(size: Self.size, seed: 14)
        server.route("/a.bin", .sequence([.serverError, .serve(resource)]))
        sandbox.add("a.bin", resource, url: server.url("a.bin"))

        let result = try sandbox.pull()

        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderrLines.contains(Self.newLine("a.bin")))
        #expect(result.stderrLines(startingWith: "retry    a.bin: HTTP 500; retrying ").count == 1, "\(result.stderr)")
        let requests = server.waitForResponses(2, to: "/a.bin")
        #expect(requests.map(\.responseStatus) == [500, 200])
        #expect(requests.allSatisfy { $0.range == nil })  // nothing to resume from an error body
        #expect(sandbox.finalContent("a.bin") == resource.allBytes)
    }

    @Test(arguments: [503, 429])
    func retryAfterIsHonoured(status: Int) throws {
        let sandbox = try PullSandbox()
        defer { sandbox.checkInvariants() }
        let server = try FaultServer()
        defer { server.stop() }
        let resource = FaultResource.pattern(size: Self.size, seed: 15)
        let busy: FaultBehavior = status == 503 ? .unavailable(retryAfter: "1") : .tooManyRequests(retryAfter: "1")
        server.route("/a.bin", .sequence([busy, .serve(resource)]))
        sandbox.add("a.bin", resource, url: server.url("a.bin"))

        let result = try sandbox.pull()  // base delay 0.05 s: only Retry-After makes it wait 1 s

        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderrLines.contains(Self.newLine("a.bin")))
        #expect(result.stderrLines(startingWith: "retry    a.bin: ")
            == ["retry    a.bin: HTTP \(status); retrying in 1.0 s"], "\(result.stderr)")
        let requests = server.waitForResponses(2, to: "/a.bin")
        try #require(requests.count == 2)
        #expect(requests.map(\.responseStatus) == [status, 200])
        let gap = requests[1].instant - requests[0].instant
        #expect(gap >= .milliseconds(900), "the retry came \(gap) after the \(status)")
        #expect(sandbox.finalContent("a.bin") == resource.allBytes)
    }

    // MARK: - 13 Redirect to another scheme

    @Test func redirectToAFileURLIsRefused() throws {
        let sandbox = try PullSandbox()
        defer { sandbox.checkInvariants() }
        let server = try FaultServer()
        defer { server.stop() }
        let resource = FaultResource.pattern(size: Self.size, seed: 16)
        server.route("/a.bin", .redirect(302, to: "file:///etc/passwd"))
        let url = server.url("a.bin")
        sandbox.add("a.bin", resource, url: url)

        let result = try sandbox.pull()

        #expect(result.status == 1, "\(result.stderr)")
        let failed = result.stderrLines(startingWith: "failed   a.bin: ")
        #expect(failed == ["failed   a.bin: refused a redirect to \"file:///etc/passwd\": only http and https are allowed (\(url))"],
                "\(result.stderr)")
        #expect(failed.first?.contains("only http and https") == true)
        #expect(server.requests.count == 1)
        #expect(sandbox.finalContent("a.bin") == nil)
        #expect(sandbox.partialSizes().allSatisfy { $0 == 0 })
        #expect(!sandbox.partialNames().contains { $0.hasSuffix(".resume") })
    }

    // MARK: - 14 Corruption

    @Test func corruptedByteEveryTimeFailsAfterTwoFullDownloads() throws {
        let sandbox = try PullSandbox()
        defer { sandbox.checkInvariants() }
        let server = try FaultServer()
        defer { server.stop() }
        let resource = FaultResource.pattern(size: Self.size, seed: 17)
        let corrupt = resource.flippingByte(at: 54_321)
        server.route("/a.bin", .serve(corrupt))
        let url = server.url("a.bin")
        sandbox.add("a.bin", resource, url: url)

        let result = try sandbox.pull()

        #expect(result.status == 1, "\(result.stderr)")
        let mismatch = "CRC-32 is \(corrupt.crc32Hex), expected \(resource.crc32Hex)"
        #expect(result.stderrLines(startingWith: "retry    a.bin: ")
            == ["retry    a.bin: \(mismatch); downloading again from zero"], "\(result.stderr)")
        #expect(result.stderrLines(startingWith: "failed   a.bin: ")
            == ["failed   a.bin: \(mismatch) after a fresh download (\(url))"], "\(result.stderr)")
        let requests = server.waitForResponses(2, to: "/a.bin")
        #expect(requests.count == 2)
        #expect(requests.allSatisfy { $0.range == nil && $0.ifRange == nil })
        #expect(requests.allSatisfy { $0.responseStatus == 200 && $0.bodyBytesSent == Self.size && $0.completed })
        #expect(sandbox.finalContent("a.bin") == nil)
        #expect(sandbox.partialNames().isEmpty, "the corrupt partial is kept: \(sandbox.partialNames())")
    }

    /// A mismatch restarts the same partial from zero (it once unlinked it first, and the fresh bytes
    /// had no name to commit).
    @Test func corruptedByteOnlyOnceSucceedsOnTheFreshDownload() throws {
        let sandbox = try PullSandbox()
        defer { sandbox.checkInvariants() }
        let server = try FaultServer()
        defer { server.stop() }
        let resource = FaultResource.pattern(size: Self.size, seed: 18)
        server.route("/a.bin", .sequence([.serve(resource.flippingByte(at: 99_999)), .serve(resource)]))
        sandbox.add("a.bin", resource, url: server.url("a.bin"))

        let result = try sandbox.pull()

        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderrLines.contains(Self.newLine("a.bin")))
        #expect(result.stderrLines(startingWith: "retry    a.bin: CRC-32 is ").count == 1, "\(result.stderr)")
        let requests = server.waitForResponses(2, to: "/a.bin")
        #expect(requests.count == 2)
        #expect(requests.allSatisfy { $0.range == nil && $0.responseStatus == 200 && $0.bodyBytesSent == Self.size })
        #expect(sandbox.finalContent("a.bin") == resource.allBytes)
        #expect(sandbox.partialNames().isEmpty)
    }

    // MARK: - 15 Credentials and redirects

    /// The credentials, for the one host the user chose (a local manifest names none: item 14 of issue 8).
    static func credentials(for server: FaultServer) -> [String] {
        ["--header", "Authorization: Bearer secret", "--header", "X-Custom-Token: t0ken", "--auth-host", "127.0.0.1:\(server.port)"]
    }

    @Test func credentialsAreNotSentToAnotherPortAfterARedirect() throws {
        let sandbox = try PullSandbox()
        defer { sandbox.checkInvariants() }
        let first = try FaultServer()
        let second = try FaultServer()
        defer {
            first.stop()
            second.stop()
        }
        let resource = FaultResource.pattern(size: Self.size, seed: 19)
        first.route("/a.bin", .redirect(302, to: second.url("elsewhere/a.bin")))
        second.route("/elsewhere/a.bin", .serve(resource))
        sandbox.add("a.bin", resource, url: first.url("a.bin"))

        let result = try sandbox.pull(Self.credentials(for: first))

        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderrLines.contains(Self.newLine("a.bin")))
        let asked = first.requests
        try #require(asked.count == 1)
        #expect(asked[0].authorization == "Bearer secret")
        #expect(asked[0][header: "X-Custom-Token"] == "t0ken")
        let redirected = second.requests
        try #require(redirected.count == 1)
        #expect(redirected[0].path == "/elsewhere/a.bin")
        #expect(redirected[0].authorization == nil)
        #expect(redirected[0][header: "X-Custom-Token"] == nil)
        #expect(sandbox.finalContent("a.bin") == resource.allBytes)
    }

    @Test func credentialsAreNotSentToAnotherHostNameAfterARedirect() throws {
        let sandbox = try PullSandbox()
        defer { sandbox.checkInvariants() }
        let server = try FaultServer()
        defer { server.stop() }
        let resource = FaultResource.pattern(size: Self.size, seed: 20)
        // Same server and port, reached through another name.
        server.route("/a.bin", .redirect(301, to: server.url("b.bin", host: "localhost")))
        server.route("/b.bin", .serve(resource))
        sandbox.add("a.bin", resource, url: server.url("a.bin"))

        let result = try sandbox.pull(Self.credentials(for: server))

        #expect(result.status == 0, "\(result.stderr)")
        let asked = server.requests(to: "/a.bin")
        try #require(asked.count == 1)
        #expect(asked[0].authorization == "Bearer secret" && asked[0][header: "X-Custom-Token"] == "t0ken")
        let redirected = server.requests(to: "/b.bin")
        try #require(redirected.count == 1)
        #expect(redirected[0][header: "Host"] == "localhost:\(server.port)")
        #expect(redirected[0].authorization == nil)
        #expect(redirected[0][header: "X-Custom-Token"] == nil)
        #expect(sandbox.finalContent("a.bin") == resource.allBytes)
    }

    @Test func credentialsStayOnASameOriginRedirect() throws {
        let sandbox = try PullSandbox()
        defer { sandbox.checkInvariants() }
        let server = try FaultServer()
        defer { server.stop() }
        let resource = FaultResource.pattern(size: Self.size, seed: 21)
        server.route("/a.bin", .redirect(307, to: server.url("b.bin")))
        server.route("/b.bin", .serve(resource))
        sandbox.add("a.bin", resource, url: server.url("a.bin"))

        let result = try sandbox.pull(Self.credentials(for: server))

        #expect(result.status == 0, "\(result.stderr)")
        #expect(server.requests.map(\.path) == ["/a.bin", "/b.bin"])
        #expect(server.requests.allSatisfy { $0.authorization == "Bearer secret" && $0[header: "X-Custom-Token"] == "t0ken" })
        #expect(sandbox.finalContent("a.bin") == resource.allBytes)
    }

    // MARK: - 16 Mirrors

    @Test func notFoundOnThePrimaryGoesToTheMirror() throws {
        let sandbox = try PullSandbox()
        defer { sandbox.checkInvariants() }
        let server = try FaultServer()
        defer { server.stop() }
        let resource = FaultResource.pattern(size: Self.size, seed: 22)
        server.route("/primary/a.bin", .notFound)
        server.route("/mirror/a.bin", .serve(resource))
        sandbox.add("a.bin", resource, url: server.url("primary/a.bin"), mirrors: [server.url("mirror/a.bin")])

        let result = try sandbox.pull()

        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderrLines.contains(Self.newLine("a.bin")))
        #expect(result.stderrLines(startingWith: "retry    a.bin: ")
            == ["retry    a.bin: HTTP 404; trying mirror 1"], "\(result.stderr)")
        #expect(server.requests.map(\.path) == ["/primary/a.bin", "/mirror/a.bin"])
        #expect(sandbox.finalContent("a.bin") == resource.allBytes)
    }

    @Test func serverErrorsExhaustingRetriesGoToTheMirror() throws {
        let sandbox = try PullSandbox()
        defer { sandbox.checkInvariants() }
        let primary = try FaultServer()
        let mirror = try FaultServer()
        defer {
            primary.stop()
            mirror.stop()
        }
        let resource = FaultResource.pattern(size: Self.size, seed: 23)
        primary.route("/a.bin", .serverError)
        mirror.route("/a.bin", .serve(resource))
        sandbox.add("a.bin", resource, url: primary.url("a.bin"), mirrors: [mirror.url("a.bin")])

        let result = try sandbox.pull(["--retries", "1"])

        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderrLines.contains(Self.newLine("a.bin")))
        let retries = result.stderrLines(startingWith: "retry    a.bin: ")
        #expect(retries.count == 2)
        #expect(retries.last == "retry    a.bin: HTTP 500; trying mirror 1", "\(result.stderr)")
        #expect(primary.requests.count == 2)  // the first try and one retry
        #expect(mirror.requests.count == 1)
        #expect(sandbox.finalContent("a.bin") == resource.allBytes)
    }

    // MARK: - 17 One failure does not stop the others

    @Test func oneFailingFileDoesNotStopTheOthers() throws {
        let sandbox = try PullSandbox()
        defer { sandbox.checkInvariants() }
        let server = try FaultServer()
        defer { server.stop() }
        let a = FaultResource.pattern(size: Self.size, seed: 24)
        let b = FaultResource.pattern(size: Self.size, seed: 25)
        let c = FaultResource.pattern(size: Self.size, seed: 26)
        server.route("/a.bin", .serve(a))
        server.route("/b.bin", .notFound)
        server.route("/dir/c.bin", .serve(c))
        sandbox.add("a.bin", a, url: nil)
        sandbox.add("b.bin", b, url: nil)
        sandbox.add("dir/c.bin", c, url: nil)
        sandbox.base = server.baseURL
        let bURL = server.url("b.bin")

        let result = try sandbox.pull()

        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderrLines.contains(Self.newLine("a.bin")))
        #expect(result.stderrLines.contains(Self.newLine("dir/c.bin")))
        #expect(result.stderrLines(startingWith: "failed   b.bin: ") == ["failed   b.bin: HTTP 404 (\(bURL))"])
        #expect(result.stderrLines.contains { $0.hasPrefix("2 new, 0 updated, 0 current, 1 failed; ") }, "\(result.stderr)")
        let failedList = result.stderrLines.drop { $0 != "Failed:" }
        #expect(Array(failedList.prefix(2)) == ["Failed:", "  b.bin: HTTP 404 (\(bURL))"], "\(result.stderr)")
        #expect(server.requests(to: "/b.bin").count == 1)
        #expect(sandbox.finalContent("a.bin") == a.allBytes)
        #expect(sandbox.finalContent("dir/c.bin") == c.allBytes)
        #expect(sandbox.finalContent("b.bin") == nil)
    }

    // MARK: - 18 Empty files

    @Test func emptyFileIsCreatedWithoutARequest() throws {
        let sandbox = try PullSandbox()
        defer { sandbox.checkInvariants() }
        let server = try FaultServer()
        defer { server.stop() }
        server.setFallback(.serve(.text("not empty")))
        sandbox.add("nested/empty.bin", Data(), url: server.url("nested/empty.bin"))
        #expect(sandbox.files.first?.crc32 == "00000000")

        let result = try sandbox.pull()

        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderrLines.contains("new      nested/empty.bin (0 B)"), "\(result.stderr)")
        #expect(server.requests.isEmpty)
        #expect(server.acceptedConnections == 0)
        #expect(sandbox.finalContent("nested/empty.bin") == Data())
        #expect(sandbox.partialNames().isEmpty)
    }
}
