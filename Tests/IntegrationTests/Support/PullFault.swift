import Foundation
import Testing

/// One way a `FaultServer` answers for one file, `a.bin`, and what `assetsync pull` must make of
/// it: a row of the fault tables, run by `run()`. Every row checks the exit code, the committed
/// line (or no `failed` line) of a success, the file's stderr lines of each kind, the number of
/// requests, the final path (the right bytes after a success, nothing after a failure) and the
/// sandbox's invariants; `check` adds what is particular to the row.
struct PullFault: Sendable, CustomTestStringConvertible {
    /// What the lines of one kind about `a.bin` on stderr (`retry    a.bin: …`) must be.
    enum Lines: Sendable {
        case unchecked
        /// This many.
        case count(Int)
        /// Exactly these, `<url>` standing for the file's URL.
        case exactly([String])
        /// Exactly one starts with this (after the kind's prefix).
        case one(startingWith: String)
        /// At least one starts with this (after the kind's prefix).
        case some(startingWith: String)
    }

    /// What a row's `check` sees of its run.
    struct Run {
        let result: RunResult
        let server: FaultServer
        let resource: FaultResource
        let url: String
        let sandbox: Sandbox
        /// The requests to `/a.bin`, once `requests` of them have arrived (and ended, if the row awaits that).
        let requests: [FaultRequest]
        /// How long the run took.
        let elapsed: Duration
    }

    /// The row's name: the test it replaced, or what it checks.
    var name: String
    /// The bytes the manifest names.
    var resource: FaultResource
    /// How the server answers for `resource` (the same value: a resource's ETag is its own).
    var behavior: @Sendable (FaultResource) -> FaultBehavior
    var options: [String] = []
    var environment: [String: String] = [:]
    var status: Int32
    /// The line a committed file gets (a 100,000-byte `a.bin` unless said).
    var committed = "new      a.bin (97.7 KiB)"
    var retries: Lines = .unchecked
    var failed: Lines = .unchecked
    var restarts: Lines = .unchecked
    /// How many requests to `/a.bin` the run makes.
    var requests: Int
    /// Whether to wait for the responses to end before `check` (not for one that stalls until the server stops).
    var awaitResponses = true
    var check: @Sendable (Run) throws -> Void = { _ in }

    var testDescription: String { name }

    /// Pulls the manifest naming `a.bin` at the server, then checks the run against the row.
    func run() throws {
        let sandbox = try Sandbox()
        defer { sandbox.checkInvariants() }
        let server = try FaultServer()
        defer { server.stop() }
        server.route("/a.bin", behavior(resource))
        let url = server.url("a.bin")
        sandbox.add("a.bin", resource, url: url)

        let started = ContinuousClock.now
        let result = try sandbox.pull(options, environment: environment)
        let elapsed = ContinuousClock.now - started

        #expect(result.status == status, "\(result.stderr)")
        if status == 0 {
            #expect(result.stderrLines.contains(committed), "\(result.stderr)")
            #expect(result.stderrLines(startingWith: "failed").isEmpty, "\(result.stderr)")
        }
        Self.expect(result, "retry    a.bin: ", retries, url: url)
        Self.expect(result, "failed   a.bin: ", failed, url: url)
        Self.expect(result, "restart  a.bin: ", restarts, url: url)
        let seen = awaitResponses
            ? server.waitForResponses(requests, to: "/a.bin") : server.waitForRequests(requests, to: "/a.bin")
        try #require(seen.count == requests, "\(seen.map(\.target))")
        #expect(sandbox.finalContent("a.bin") == (status == 0 ? resource.allBytes : nil))
        try check(Run(
            result: result, server: server, resource: resource, url: url, sandbox: sandbox, requests: seen, elapsed: elapsed))
    }

    private static func expect(_ result: RunResult, _ prefix: String, _ expected: Lines, url: String) {
        let lines = result.stderrLines(startingWith: prefix)
        let detail = Comment(rawValue: result.stderr.debugDescription)
        switch expected {
        case .unchecked:
            break
        case .count(let count):
            #expect(lines.count == count, detail)
        case .exactly(let expected):
            #expect(lines == expected.map { $0.replacingOccurrences(of: "<url>", with: url) }, detail)
        case .one(let start):
            #expect(lines.filter { $0.hasPrefix(prefix + start) }.count == 1, detail)
        case .some(let start):
            #expect(lines.contains { $0.hasPrefix(prefix + start) }, detail)
        }
    }
}
