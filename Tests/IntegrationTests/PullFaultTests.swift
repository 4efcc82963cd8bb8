import Foundation
import Glibc
import Testing

extension Tag {
    /// `assetsync pull` against a hostile server.
    @Tag static var pullFaults: Self
}

/// `assetsync pull` against a `FaultServer` that breaks HTTP in one way per test: the exit code,
/// the file's stderr line, what the server saw, and the cache afterwards. Every test ends with
/// `Sandbox.checkInvariants()`: final paths hold the manifest's bytes or nothing, and nothing
/// was written outside DEST.
///
/// Runs use `ASSETSYNC_RETRY_DELAY=0.05` (the sandbox's default), small files and loopback only.
@Suite(.tags(.pullFaults))
struct PullFaultTests {
    static let size = 100_000

    /// "new      a.bin (97.7 KiB)", the line a committed 100,000-byte file gets.
    static func newLine(_ path: String) -> String { "new      \(path) (97.7 KiB)" }

    static func pattern(_ seed: UInt64) -> FaultResource { .pattern(size: size, seed: seed) }

    /// The faults one file on one server shows, each a row: broken bodies resume (1–3), bodies longer
    /// than the manifest's size (4), a lying Content-Length (5), resumes the server does not honour
    /// (6–8), statuses (9–12), a redirect to another scheme (13) and corruption (14).
    static let faults: [PullFault] = [
        // MARK: 1–3 Broken bodies resume
        PullFault(
            name: "truncatedBodyResumesWithRangeAndIfRange", resource: pattern(1),
            behavior: { .sequence([.serve($0).truncated(after: 30_000), .serve($0)]) },
            status: 0, retries: .count(1), requests: 2
        ) { run in
            let requests = run.requests
            #expect(requests[0].range == nil && requests[0].ifRange == nil)
            #expect(requests[0].responseStatus == 200 && requests[0].bodyBytesSent == 30_000 && !requests[0].completed)
            #expect(requests[1].range == "bytes=30000-")
            #expect(requests[1].ifRange == run.resource.etag)
            #expect(requests[1].responseStatus == 206 && requests[1].bodyBytesSent == 70_000)
            #expect(run.sandbox.partialNames().isEmpty)
        },
        PullFault(
            name: "connectionResetMidBodyResumesWithRangeAndIfRange", resource: pattern(2),
            behavior: { .sequence([.serve($0).reset(after: 20_000), .serve($0)]) },
            status: 0, retries: .count(1), requests: 2
        ) { run in
            let requests = run.requests
            #expect(requests[0].range == nil && requests[0].bodyBytesSent == 20_000 && !requests[0].completed)
            // A reset may drop bytes still in flight: the resume starts wherever the client's bytes end.
            let range = try #require(requests[1].range)
            let offset = try #require(Int(range.dropFirst("bytes=".count).dropLast()), "\(range)")
            #expect(range == "bytes=\(offset)-")
            #expect((1...20_000).contains(offset))
            #expect(requests[1].ifRange == run.resource.etag)
            #expect(requests[1].responseStatus == 206 && requests[1].bodyBytesSent == size - offset)
        },
        PullFault(
            name: "stalledBodyHitsTheLowSpeedTimeoutThenResumes", resource: pattern(3),
            behavior: { .sequence([.serve($0).stalled(after: 25_000, for: 60), .serve($0)]) },
            environment: ["ASSETSYNC_STALL_TIMEOUT": "1"], status: 0, retries: .count(1), requests: 2,
            // The stalled response never ends until the server stops: read the records as they are.
            awaitResponses: false
        ) { run in
            let retries = run.result.stderrLines(startingWith: "retry    a.bin: ")
            let reason = retries.first?.lowercased() ?? ""
            #expect(["slow", "stall", "timeout", "timed out"].contains { reason.contains($0) }, "\(retries)")
            let requests = run.requests
            #expect(requests[0].range == nil && requests[0].bodyBytesSent == 25_000)
            #expect(requests[1].range == "bytes=25000-" && requests[1].ifRange == run.resource.etag)
            #expect(requests[1].responseStatus == 206)
            let gap = requests[1].instant - requests[0].instant
            #expect(gap >= .milliseconds(900), "resumed \(gap) after the stall began")  // the stall was waited out
            // A stall is timed from the last byte received (libcurl's own low-speed check averages over ~5 s
            // and reacted ~6 s late). Generous bound for a busy machine: 5 s.
            #expect(gap < .seconds(5), "the stall was detected \(gap) after it began, with a 1 s stall timeout")
            #expect(run.elapsed < .seconds(60))  // not the server's 60 s stall
        },

        // MARK: 4 Bodies longer than the manifest's size
        PullFault(
            name: "longerBodyWithALongerContentLengthIsRefused", resource: pattern(4),
            behavior: { .serve($0).appendingBytes(500).declaringContentLength(size + 500) },
            status: 1, failed: .exactly(["failed   a.bin: the server announced more than the manifest's 100000 bytes (<url>)"]),
            requests: 1
        ) { run in
            #expect(run.sandbox.partialSizes().allSatisfy { $0 <= size })
        },
        PullFault(
            name: "longerCloseDelimitedBodyIsCutOffAndRefused", resource: pattern(5),
            behavior: { .serve($0).appendingBytes(500).closeDelimited() },
            status: 1, failed: .exactly(["failed   a.bin: the server sent more than the manifest's 100000 bytes (<url>)"]),
            requests: 1
        ) { run in
            #expect(run.requests.first?[header: "Content-Length"] == nil)
            #expect(run.sandbox.partialSizes().allSatisfy { $0 <= size })  // cut off at the size
        },
        PullFault(
            name: "longerChunkedBodyIsCutOffAndRefused", resource: pattern(6),
            behavior: { .serve($0).appendingBytes(500).chunked(chunkSize: 4_096) },
            status: 1, failed: .exactly(["failed   a.bin: the server sent more than the manifest's 100000 bytes (<url>)"]),
            requests: 1
        ) { run in
            #expect(run.sandbox.partialSizes().allSatisfy { $0 <= size })
        },

        // MARK: 5 Lying Content-Length
        PullFault(
            name: "rightContentLengthWithExtraBytesAfterItCommitsOnlyTheDeclaredBytes", resource: pattern(7),
            behavior: { .serve($0).appendingBytes(500) },  // declares 100000, sends 100500
            status: 0, requests: 1
        ) { run in
            #expect(run.requests[0].bodyBytesSent == size + 500)
        },
        PullFault(
            name: "rightContentLengthWithAShorterBodyRetriesAndResumes", resource: pattern(8),
            // The first answer declares 100000 bytes, sends 99000 and closes.
            behavior: { .sequence([.serve(shortened($0)).declaringContentLength(size), .serve($0)]) },
            status: 0, retries: .count(1), requests: 2
        ) { run in
            let requests = run.requests
            #expect(requests[0].bodyBytesSent == 99_000)
            #expect(requests[1].range == "bytes=99000-" && requests[1].ifRange == run.resource.etag)
            #expect(requests[1].responseStatus == 206 && requests[1].bodyBytesSent == 1_000)
        },
        PullFault(
            name: "rightContentLengthWithAShorterBodyEveryTimeFailsWithoutCommitting", resource: pattern(9),
            behavior: { .serve(shortened($0)).declaringContentLength(size) },
            options: ["--retries", "2"], status: 1, retries: .count(2), failed: .count(1),
            requests: 3  // 1 + 2 retries
        ) { run in
            #expect(run.sandbox.partialSizes().allSatisfy { $0 <= 99_000 })
        },

        // MARK: 6–8 A resume that the server does not honour restarts from zero
        PullFault(
            name: "serverIgnoringRangeRestartsFromZero", resource: pattern(10),
            behavior: { .sequence([.serve($0).truncated(after: 40_000), .ignoringRange($0)]) },
            status: 0, requests: 2
        ) { run in
            let requests = run.requests
            #expect(requests[1].range == "bytes=40000-" && requests[1].ifRange == run.resource.etag)
            #expect(requests[1].responseStatus == 200 && requests[1].bodyBytesSent == size && requests[1].completed)
            #expect(run.sandbox.partialNames().isEmpty)
        },
        PullFault(
            name: "wrongContentRangeOnAResumeRestartsFromZero", resource: pattern(11),
            // Resumes are answered one byte off; a request without Range gets the whole file.
            behavior: { .sequence([.serve($0).truncated(after: 40_000), .wrongContentRange($0, shift: 1)]) },
            status: 0,
            retries: .some(startingWith: "a resume was answered with Content-Range bytes 40001-99999/100000; restarting from zero"),
            requests: 3
        ) { run in
            let requests = run.requests
            #expect(requests[1].range == "bytes=40000-" && requests[1].responseStatus == 206)
            #expect(requests[2].range == nil && requests[2].ifRange == nil)
            #expect(requests[2].responseStatus == 200 && requests[2].bodyBytesSent == size)
        },
        PullFault(
            name: "rangeNotSatisfiableOnAResumeRestartsFromZero", resource: pattern(12),
            behavior: { .sequence([.serve($0).truncated(after: 40_000), .rangeNotSatisfiable($0)]) },
            status: 0, retries: .some(startingWith: "HTTP 416 (range not satisfiable); restarting from zero"), requests: 3
        ) { run in
            let requests = run.requests
            #expect(requests[1].range == "bytes=40000-" && requests[1].responseStatus == 416)
            #expect(requests[2].range == nil && requests[2].responseStatus == 200 && requests[2].bodyBytesSent == size)
        },
        PullFault(
            name: "multipartOnAResumeRestartsFromZero", resource: pattern(41),
            // Resumes are answered as multipart/byteranges; a request without Range gets the whole file.
            behavior: { .sequence([.serve($0).truncated(after: 40_000), .multipartRanges($0)]) },
            status: 0, retries: .some(startingWith: "a resume was answered with multipart/byteranges; restarting from zero"),
            requests: 3
        ) { run in
            let requests = run.requests
            #expect(requests[1].range == "bytes=40000-" && requests[1].responseStatus == 206)
            #expect(requests[2].range == nil && requests[2].responseStatus == 200 && requests[2].bodyBytesSent == size)
        },

        // MARK: 9–12 Statuses
        PullFault(
            name: "notFoundIsFinalWithoutRetries", resource: pattern(13), behavior: { _ in .notFound },
            status: 1, failed: .exactly(["failed   a.bin: HTTP 404 (<url>)"]), requests: 1
        ) { run in
            #expect(run.result.stderrLines(startingWith: "retry").isEmpty)
            #expect(run.result.stderrLines.contains("  a.bin: HTTP 404 (\(run.url))"))  // in the summary's "Failed:" list
            #expect(run.server.requests.count == 1)
            #expect(run.sandbox.partialNames().isEmpty)
        },
        PullFault(
            name: "serverErrorIsRetriedThenSucceeds", resource: pattern(14), behavior: { .sequence([.serverError, .serve($0)]) },
            status: 0, retries: .one(startingWith: "HTTP 500; retrying "), requests: 2
        ) { run in
            #expect(run.requests.map(\.responseStatus) == [500, 200])
            #expect(run.requests.allSatisfy { $0.range == nil })  // nothing to resume from an error body
        },
    ] + [503, 429].map { status in
        // Base delay 0.05 s: only Retry-After makes it wait 1 s.
        PullFault(
            name: "retryAfterIsHonoured(status: \(status))", resource: pattern(15),
            behavior: { .sequence([status == 503 ? .unavailable(retryAfter: "1") : .tooManyRequests(retryAfter: "1"), .serve($0)]) },
            status: 0, retries: .exactly(["retry    a.bin: HTTP \(status); retrying in 1.0 s"]), requests: 2
        ) { run in
            #expect(run.requests.map(\.responseStatus) == [status, 200])
            let gap = run.requests[1].instant - run.requests[0].instant
            #expect(gap >= .milliseconds(900), "the retry came \(gap) after the \(status)")
        }
    } + [
        // MARK: 13 Redirect to another scheme
        PullFault(
            name: "redirectToAFileURLIsRefused", resource: pattern(16), behavior: { _ in .redirect(302, to: "file:///etc/passwd") },
            status: 1,
            failed: .exactly(["failed   a.bin: refused a redirect to \"file:///etc/passwd\": only http and https are allowed (<url>)"]),
            requests: 1
        ) { run in
            #expect(run.result.stderrLines(startingWith: "failed   a.bin: ").first?.contains("only http and https") == true)
            #expect(run.server.requests.count == 1)
            #expect(run.sandbox.partialSizes().allSatisfy { $0 == 0 })
            #expect(!run.sandbox.partialNames().contains { $0.hasSuffix(".resume") })
        },

        // MARK: 14 Corruption
        PullFault(
            name: "corruptedByteEveryTimeFailsAfterTwoFullDownloads", resource: pattern(17),
            behavior: { .serve($0.flippingByte(at: 54_321)) }, status: 1,
            retries: .exactly(["retry    a.bin: \(mismatch(pattern(17), at: 54_321)); downloading again from zero"]),
            failed: .exactly(["failed   a.bin: \(mismatch(pattern(17), at: 54_321)) after a fresh download (<url>)"]),
            requests: 2
        ) { run in
            #expect(run.requests.allSatisfy { $0.range == nil && $0.ifRange == nil })
            #expect(run.requests.allSatisfy { $0.responseStatus == 200 && $0.bodyBytesSent == size && $0.completed })
            #expect(run.sandbox.partialNames().isEmpty, "the corrupt partial is kept: \(run.sandbox.partialNames())")
        },
        // A mismatch restarts the same partial from zero (it once unlinked it first, and the fresh bytes
        // had no name to commit).
        PullFault(
            name: "corruptedByteOnlyOnceSucceedsOnTheFreshDownload", resource: pattern(18),
            behavior: { .sequence([.serve($0.flippingByte(at: 99_999)), .serve($0)]) },
            status: 0, retries: .one(startingWith: "CRC-32 is "), requests: 2
        ) { run in
            #expect(run.requests.allSatisfy { $0.range == nil && $0.responseStatus == 200 && $0.bodyBytesSent == size })
            #expect(run.sandbox.partialNames().isEmpty)
        },
    ]

    /// `resource`'s first 99,000 bytes, with its ETag.
    static func shortened(_ resource: FaultResource) -> FaultResource {
        .data(resource.bytes(in: 0..<99_000), etag: resource.etag)
    }

    /// The mismatch a CRC check reports when the byte at `offset` of `resource` is flipped.
    static func mismatch(_ resource: FaultResource, at offset: Int) -> String {
        "CRC-32 is \(resource.flippingByte(at: offset).crc32Hex), expected \(resource.crc32Hex)"
    }

    @Test(arguments: faults)
    func oneFileAgainstAFault(_ fault: PullFault) throws {
        try fault.run()
    }

    // MARK: - 15 Credentials and redirects

    /// The credentials, for the one host the user chose (a local manifest names none).
    static func credentials(for server: FaultServer) -> [String] {
        ["--header", "Authorization: Bearer secret", "--header", "X-Custom-Token: t0ken", "--auth-host", "127.0.0.1:\(server.port)"]
    }

    @Test func credentialsAreNotSentToAnotherPortAfterARedirect() throws {
        let sandbox = try Sandbox()
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
        let sandbox = try Sandbox()
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
        let sandbox = try Sandbox()
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
        let sandbox = try Sandbox()
        defer { sandbox.checkInvariants() }
        let server = try FaultServer()
        defer { server.stop() }
        let resource = FaultResource.pattern(size: Self.size, seed: 22)
        server.route("/primary/a.bin", .notFound)
        server.route("/mirror/a.bin", .serve(resource))
        sandbox.add("a.bin", resource, url: server.url("primary/a.bin"), mirrors: [server.url("mirror/a.bin")])

        let result = try sandbox.pull()

        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderrLines.contains(Self.newLine("a.bin") + " from mirror " + server.url("mirror/a.bin")))
        #expect(result.stderrLines(startingWith: "retry    a.bin: ")
            == ["retry    a.bin: HTTP 404; trying mirror 1"], "\(result.stderr)")
        #expect(server.requests.map(\.path) == ["/primary/a.bin", "/mirror/a.bin"])
        #expect(sandbox.finalContent("a.bin") == resource.allBytes)
    }

    @Test func serverErrorsExhaustingRetriesGoToTheMirror() throws {
        let sandbox = try Sandbox()
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
        #expect(result.stderrLines.contains(Self.newLine("a.bin") + " from mirror " + mirror.url("a.bin")))
        let retries = result.stderrLines(startingWith: "retry    a.bin: ")
        #expect(retries.count == 2)
        #expect(retries.last == "retry    a.bin: HTTP 500; trying mirror 1", "\(result.stderr)")
        #expect(primary.requests.count == 2)  // the first try and one retry
        #expect(mirror.requests.count == 1)
        #expect(sandbox.finalContent("a.bin") == resource.allBytes)
    }

    // MARK: - 17 One failure does not stop the others

    @Test func oneFailingFileDoesNotStopTheOthers() throws {
        let sandbox = try Sandbox()
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
        let sandbox = try Sandbox()
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
