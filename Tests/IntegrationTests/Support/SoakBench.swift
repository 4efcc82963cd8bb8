import Foundation
import Glibc
import Testing
import TestSupport

/// The soak: `assetsync pull --delete` again and again, of a `SoakFileSet` that
/// changes between runs, from a `FaultServer` whose every answer `RandomFaults` picks, with SIGTERM at
/// a random moment of every third run. After each run: `RunInvariants.check` (I1–I4), then a healthy
/// rerun (honest answers only) and `verify`, and `checkRerun` with `checkRequests` (I5). At the end DEST must hold exactly
/// the last manifest's files. The memory and descriptors of every process are sampled while it runs,
/// and must not grow (`UsageHistory`). Every violation is an issue naming the run, the seed and the command.
final class SoakBench {
    /// What the soak did, for its summary.
    struct Totals {
        var runs = 0
        var requests = 0
        var exits: [Int32: Int] = [:]
        var sigtermsSent = 0
        /// Runs that got SIGTERM and exited 130.
        var interrupted = 0
        var violations = 0
        var seconds = 0.0
    }

    /// One process's run, watched.
    struct Observed {
        var result: RunResult
        var seconds: Double
        var peakResidentBytes = 0
        var peakDescriptors = 0
        /// When SIGTERM was sent, in seconds after the start; nil if it was not.
        var sigtermAt: Double?
    }

    /// The settings of every run: stalls detected after 2 s (a stall lasts `stallSeconds`), files of
    /// 1 MiB and more in segments, fast retries.
    static let settings = [
        "ASSETSYNC_STALL_TIMEOUT": "2", "ASSETSYNC_SEGMENT_THRESHOLD": "\(1 << 20)", "ASSETSYNC_RETRY_DELAY": "0.05",
    ]
    static let stallSeconds = 4.0
    /// A run still going after this long hangs: every wait in a run is bounded far below it
    /// (stalls by 2 s, retries by 5 per URL, each delay by a few seconds).
    static let hangSeconds = 120.0

    let seed: UInt64
    let root: TemporaryDirectory
    let server: FaultServer
    let faults: RandomFaults
    private(set) var files: SoakFileSet
    private var random: SeededGenerator
    private(set) var totals = Totals()
    private(set) var pulls = UsageHistory(label: "pull")
    private(set) var reruns = UsageHistory(label: "rerun")
    private(set) var verifies = UsageHistory(label: "verify")

    var dest: String { root.path + "/dest" }
    var sentinel: String { root.path + "/sentinel" }
    var manifest: String { root.path + "/manifest.json" }

    /// A server with `fileCount` files routed, a sentinel tree, and DEST populated by a healthy pull
    /// (so that `--delete` may act on it).
    init(seed: UInt64, fileCount: Int) throws {
        self.seed = seed
        random = SeededGenerator(seed: seed)
        root = try TemporaryDirectory()
        server = try FaultServer()
        faults = RandomFaults(seed: seed, stallSeconds: Self.stallSeconds)
        files = SoakFileSet(count: fileCount, random: &random)
        for path in files.paths { route(path) }
        try FileManager.default.createDirectory(atPath: sentinel + "/inner", withIntermediateDirectories: true)
        try Data("beside DEST".utf8).write(to: URL(fileURLWithPath: sentinel + "/inner/s.txt"))
        faults.injecting = false
        let populate = try observe(["pull", writeManifest(), "--dest", dest])
        try #require(populate.result.status == 0, "the first, healthy pull: \(populate.result.stderr)")
        print("soak: seed \(seed) (replay with ASSETSYNC_SOAK_SEED=\(seed)); \(files.paths.count) files, "
              + "first pull \(format(populate.seconds)) s, peak RSS \(UsageHistory.mebibytes(populate.peakResidentBytes)), "
              + "\(populate.peakDescriptors) descriptors")
    }

    func stop() { server.stop() }

    /// Runs until `seconds` have passed and at least `minimumRuns` runs were made, then checks
    /// DEST and the growth of memory and descriptors, and prints the summary.
    func soak(seconds: Double, minimumRuns: Int) throws {
        let started = ContinuousClock.now
        var lastPull = 2.0
        while totals.runs < minimumRuns || (ContinuousClock.now - started) < .seconds(seconds) {
            lastPull = try runOnce(at: Self.seconds(since: started), sigtermWithin: lastPull)
        }
        totals.seconds = Self.seconds(since: started)
        let extra = Self.mismatches(RunInvariants.snapshot(dest), files.entries(url: url))
        if !extra.isEmpty { violation("at the end, DEST is not the last manifest", extra) }
        for history in [pulls, reruns, verifies] {
            let growth = history.violations()
            if !growth.isEmpty { violation("memory or descriptors grew", growth) }
        }
        printSummary()
    }

    /// One run (with SIGTERM every third), its checks, the healthy rerun and verify; returns how long the pull took.
    private func runOnce(at elapsed: Double, sigtermWithin window: Double) throws -> Double {
        totals.runs += 1
        let run = totals.runs
        let changes = files.change(random: &random)
        for path in changes.removed { server.removeRoute(path) }
        for path in changes.served { route(path) }
        let manifest = try writeManifest()
        let entries = files.entries(url: url)
        let invariants = RunInvariants(dest: dest, sentinel: sentinel, entries: entries)
        let arguments = ["pull", manifest, "--dest", dest, "--delete"]
        let sigterm = run % 3 == 2 ? Double.random(in: 0...window, using: &random) : nil

        faults.injecting = true
        let faultsBefore = faults.counts
        var requests = server.requests.count
        let pull = try observe(arguments, sigtermAfter: sigterm)
        let pullRequests = server.requests.count - requests
        let injected = faults.counts.reduce(0) { $0 + ($1.key == .honest ? 0 : $1.value - (faultsBefore[$1.key] ?? 0)) }
        totals.exits[pull.result.status, default: 0] += 1
        if pull.sigtermAt != nil { totals.sigtermsSent += 1 }
        let interrupted = pull.sigtermAt != nil && pull.result.status == 130
        if interrupted { totals.interrupted += 1 }
        // Exit 130 after SIGTERM is the documented outcome; a run that had finished its work when the
        // signal came ends as any other.
        var violations = invariants.check(pull.result, outcome: interrupted ? .interrupted : .exits(RunInvariants.documentedStatuses))
        pulls.add(.init(run: run, requests: pullRequests, peakResidentBytes: pull.peakResidentBytes, peakDescriptors: pull.peakDescriptors))

        faults.injecting = false
        requests = server.requests.count
        let holdings = invariants.holdings { [files] path, range in files.files[path]?.resource.bytes(in: range) }
        let rerun = try observe(arguments)
        let rerunRequests = server.requests.count - requests
        let answered = server.waitForResponses(requests + rerunRequests).dropFirst(requests)
        let verify = try observe(["verify", manifest, "--dest", dest])
        violations += invariants.checkRerun(pull: rerun.result, verify: verify.result)
        violations += invariants.checkRequests(answered.map { RunInvariants.Request($0) }, holdings: holdings)
        reruns.add(.init(run: run, requests: rerunRequests, peakResidentBytes: rerun.peakResidentBytes, peakDescriptors: rerun.peakDescriptors))
        verifies.add(.init(run: run, requests: 0, peakResidentBytes: verify.peakResidentBytes, peakDescriptors: verify.peakDescriptors))
        totals.requests += pullRequests + rerunRequests

        if !violations.isEmpty {
            let signal = pull.sigtermAt.map { " (SIGTERM after \(format($0)) s)" } ?? ""
            violation("run \(run): \(command(arguments))\(signal)", violations)
        }
        let mib = { (observed: Observed) in UsageHistory.mebibytes(observed.peakResidentBytes) }
        print("soak run \(run) at \(Int(elapsed)) s: \(changes); pull exit \(pull.result.status) in \(format(pull.seconds)) s"
              + (pull.sigtermAt.map { " (SIGTERM at \(format($0)) s)" } ?? "")
              + ", \(pullRequests) requests, \(injected) faults; rerun exit \(rerun.result.status), \(rerunRequests) requests; "
              + "verify exit \(verify.result.status); peak RSS \(mib(pull)) / \(mib(rerun)) / \(mib(verify)), "
              + "descriptors \(pull.peakDescriptors) / \(rerun.peakDescriptors) / \(verify.peakDescriptors)")
        return pull.seconds
    }

    /// Starts `assetsync ARGUMENTS` from the sandbox and samples it every 10 ms until it exits,
    /// sending SIGTERM once `sigtermAfter` seconds have passed and it catches the signal.
    private func observe(_ arguments: [String], sigtermAfter: Double? = nil) throws -> Observed {
        let running = try AssetSyncBinary.start(arguments, directory: root.url, environment: Sandbox.environment(Self.settings))
        let started = ContinuousClock.now
        var peakResident = 0, peakDescriptors = 0
        var sigtermAt: Double?
        var hung: String?
        while running.process.isRunning {
            if Self.seconds(since: started) > Self.hangSeconds {
                hung = running.stderrSoFar
                kill(running.pid, SIGKILL)
                break
            }
            if let usage = ProcessUsage.sample(pid: running.pid) {
                peakResident = max(peakResident, usage.peakResidentBytes)
                peakDescriptors = max(peakDescriptors, usage.openDescriptors)
                let now = Self.seconds(since: started)
                if let moment = sigtermAfter, sigtermAt == nil, now >= moment, usage.catches(SIGTERM), kill(running.pid, SIGTERM) == 0 {
                    sigtermAt = now
                }
            }
            usleep(10_000)
        }
        let result = try running.wait()
        // A crash (`result.signal`) is I4's to find, or I5's for the rerun and verify; a hang is found here.
        if let hung {
            violation("'\(command(arguments))' did not end within \(Int(Self.hangSeconds)) s and was killed", [hung])
        }
        return Observed(
            result: result, seconds: Self.seconds(since: started), peakResidentBytes: peakResident,
            peakDescriptors: peakDescriptors, sigtermAt: sigtermAt)
    }

    /// Where DEST (a `snapshot`) differs from `entries`: a file missing or with other bytes, or a
    /// file outside `.assetsync/` that no entry names.
    static func mismatches(_ snapshot: [String: RunInvariants.Fingerprint], _ entries: [TestManifest.File]) -> [String] {
        var found: [String] = []
        var named: Set<String> = []
        for entry in entries {
            named.insert(entry.path)
            let right = RunInvariants.Fingerprint(size: entry.size, crc32: entry.crc32)
            if snapshot[entry.path] != right {
                found.append("'\(entry.path)' holds \(snapshot[entry.path].map(\.description) ?? "nothing"), not \(right)")
            }
        }
        for path in snapshot.keys.sorted() where !RunInvariants.isMetadata(path) && !named.contains(path) {
            found.append("'\(path)' is in DEST but not in the manifest")
        }
        return found
    }

    /// The server's URL of `path`.
    private func url(_ path: String) -> String { server.url(path) }

    private func route(_ path: String) { server.route(path, faults.behavior(for: files.files[path]!.resource)) }

    private func writeManifest() throws -> String {
        try JSONSerialization.data(withJSONObject: [
            "version": 1,
            "files": files.entries(url: url).map { ["path": $0.path, "size": $0.size, "crc32": $0.crc32, "url": $0.url!] },
        ], options: [.sortedKeys]).write(to: URL(fileURLWithPath: manifest))
        return manifest
    }

    /// The command line of a run, to repeat it by hand: its settings, the binary and its arguments.
    private func command(_ arguments: [String]) -> String {
        (Self.settings.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" } + [AssetSyncBinary.url.path] + arguments)
            .joined(separator: " ")
    }

    /// Records violations as one issue, with the seed to replay them.
    private func violation(_ what: String, _ details: [String]) {
        totals.violations += 1
        Issue.record("soak (seed \(seed), replay with ASSETSYNC_SOAK_SEED=\(seed)): \(what):\n\(details.joined(separator: "\n"))")
    }

    private func printSummary() {
        let exits = totals.exits.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", ")
        let counts = faults.counts
        let kinds = RandomFaults.Kind.allCases.filter { $0 != .honest }.map { "\($0.rawValue) \(counts[$0] ?? 0)" }
        let injected = counts.filter { $0.key != .honest }.values.reduce(0, +)
        print("soak: \(totals.runs) runs in \(Int(totals.seconds)) s (seed \(seed)), \(totals.requests) requests; pull exits \(exits)")
        print("soak: faults injected \(injected): \(kinds.joined(separator: ", ")); honest answers \(counts[.honest] ?? 0)")
        print("soak: SIGTERMs sent \(totals.sigtermsSent): \(totals.interrupted) exited 130, "
              + "\(totals.sigtermsSent - totals.interrupted) had finished their work")
        for history in [pulls, reruns, verifies] { print("soak: \(history.summary)") }
        print("soak: \(totals.violations) violations")
    }

    private func format(_ seconds: Double) -> String { String(format: "%.1f", seconds) }

    private static func seconds(since start: ContinuousClock.Instant) -> Double {
        let elapsed = (ContinuousClock.now - start).components
        return Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18
    }
}
