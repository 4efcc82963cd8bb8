import Foundation
import Glibc
import Testing
import TestSupport

/// `kill -9` at random moments of a pull of 32 × 16 MiB files from nginx: each case
/// starts a pull into an empty DEST, sends SIGKILL after a random delay within a healthy pull's time
/// (measured first), checks I1–I4 with `RunInvariants`, then reruns healthy and checks I5, the rerun's
/// requests included.
///
/// The delays come from a seeded generator and the seed is printed: `ASSETSYNC_TORTURE_SEED=S` runs
/// the same moments again (as far as a busy machine makes one run like another). 100 cases with
/// `ASSETSYNC_TORTURE=1` (`make torture`), 2 otherwise.
@Suite(.serialized) struct KillTortureTests {
    static let fileCount = 32
    static let fileSize = 16 << 20

    /// `count` random bytes from the kernel (`/dev/urandom`), fast enough for hundreds of mebibytes.
    static func randomBytes(_ count: Int) throws -> Data {
        let urandom = try FileHandle(forReadingFrom: URL(fileURLWithPath: "/dev/urandom"))
        defer { try? urandom.close() }
        return try #require(try urandom.read(upToCount: count))
    }

    @Test func killedAtRandomMoments() throws {
        let cases = TortureTests.sweepEnabled ? 100 : 2
        let seed = ProcessInfo.processInfo.environment["ASSETSYNC_TORTURE_SEED"].flatMap { UInt64($0) } ?? UInt64.random(in: 0...UInt64.max)
        var generator = SeededGenerator(seed: seed)
        let began = ContinuousClock.now
        let sandbox = try Sandbox(
            serving: Dictionary(uniqueKeysWithValues: try (0..<Self.fileCount).map { (String(format: "set/f%02d.bin", $0), try Self.randomBytes(Self.fileSize)) }))
        let nginx = try NginxServer(root: sandbox.served)
        defer { nginx.stop() }
        let manifest = try sandbox.manifest(base: nginx.baseURL)
        let sentinel = sandbox.root.path + "/sentinel"
        try FileManager.default.createDirectory(atPath: sentinel, withIntermediateDirectories: true)
        try Data("beside DEST".utf8).write(to: URL(fileURLWithPath: sentinel + "/s.txt"))
        func start() throws -> RunningAssetSync {
            try AssetSyncBinary.start(
                ["pull", manifest, "--dest", sandbox.dest], directory: sandbox.root.url, environment: Sandbox.environment([:]))
        }
        func run(_ arguments: [String]) throws -> RunResult {
            try AssetSyncBinary.run(
                [arguments[0], manifest, "--dest", sandbox.dest] + arguments.dropFirst(), directory: sandbox.root.url,
                environment: Sandbox.environment([:]))
        }

        let healthyStart = ContinuousClock.now
        let healthy = try start().wait()
        let seconds = (ContinuousClock.now - healthyStart) / .seconds(1)
        try #require(healthy.status == 0, "\(healthy.stderr)")
        print("torture: random kills: seed \(seed), a healthy pull of \(Self.fileCount) × \(Self.fileSize >> 20) MiB takes \(seconds) s")

        var failures = 0
        var unreached = 0
        var resumed = 0
        var fetched = 0
        for index in 0..<cases {
            try? FileManager.default.removeItem(atPath: sandbox.dest)
            let invariants = RunInvariants(dest: sandbox.dest, sentinel: sentinel, entries: sandbox.files)
            let delay = Double.random(in: 0..<seconds, using: &generator)
            let running = try start()
            // The random moment itself, not a wait for a condition.
            usleep(useconds_t(delay * 1e6))
            running.signal(SIGKILL)
            let result = try running.wait()
            let killed = result.signal != nil
            if !killed { unreached += 1 }
            var violations = invariants.check(result, outcome: killed ? .killed(SIGKILL) : .exits([0]))
            let rerun = try TortureTests.rerun(invariants, nginx: nginx, run: run)
            violations += rerun.violations
            resumed += rerun.requests.count { $0.range != nil }
            fetched += rerun.requests.reduce(0) { $0 + $1.bodyBytes }
            if !violations.isEmpty {
                failures += 1
                Issue.record("case \(index) (seed \(seed)), killed after \(delay) s:\n\(violations.joined(separator: "\n"))")
            }
        }
        let elapsed = ContinuousClock.now - began
        print("torture: random kills: \(cases) cases, \(failures) failed, \(unreached) kills not reached (the run completed); "
              + "the reruns resumed \(resumed) partials with Range and fetched \(fetched >> 20) MiB; seed \(seed); \(elapsed.components.seconds) s in all")
    }
}
