import Foundation
import Glibc
import Testing
import TestSupport

/// Syscall torture: a small pull, `pull --delete`, `verify --repair` and a pull resuming
/// a killed one's partial, from nginx, with the Kth call of one system call
/// failed with an error, or the process killed there, by strace's fault injection; `RunInvariants`
/// checks I1–I5 after every case, I5 with nginx's log of the healthy rerun (it asks only for what was
/// missing).
///
/// Which K: strace counts calls per syscall and per thread (`-f`), and the dynamic loader and the
/// runtime make calls (`openat` of libraries) on the main thread before assetsync's code runs. The full
/// sweep takes every K from 1 to the most calls any thread made in a traced healthy baseline run; a run
/// whose loader failed (exit 127, "error while loading shared libraries") is counted apart as "not
/// started" and only I1–I3 and I5 are checked for it. The always-on subset takes, per syscall, the first
/// K past the main thread's calls before its first call on the sandbox (so assetsync's own first call)
/// and the last K.
///
/// The full sweep runs with `ASSETSYNC_TORTURE=1` (`make torture`); the first and last K of each
/// syscall run always.
@Suite(.serialized) struct TortureTests {
    static let strace = "/usr/bin/strace"
    static let hasStrace = FileManager.default.isExecutableFile(atPath: strace)
    static let sweepEnabled = ProcessInfo.processInfo.environment["ASSETSYNC_TORTURE"] == "1"

    /// The system calls tortured, each with the error it fails with: every call on the list to torture that
    /// the binary makes here (`strace -f -c` of each scenario). Reads are `read` (the manifest, and the
    /// loader's) and `pread64` (resume records, the state index, files re-read by `verify` and resumes);
    /// writes are `pwrite64` (partials, the lock's holder) and `write` (the state index, records, stderr);
    /// `stat`, `fstat` and `fstatat` are all `newfstatat` (glibc 2.36 makes no `statx` or `fstat` call).
    static let targets: [(syscall: String, error: String)] = [
        ("openat", "EACCES"), ("read", "EIO"), ("pread64", "EIO"), ("pwrite64", "ENOSPC"), ("write", "ENOSPC"),
        ("newfstatat", "EIO"), ("fdatasync", "EIO"), ("fsync", "EIO"), ("syncfs", "EIO"),
        ("renameat", "EIO"), ("unlinkat", "EACCES"), ("mkdirat", "EACCES"), ("flock", "ENOLCK"),
    ]

    /// The command under torture, and the DEST it starts from.
    enum Scenario: String, CaseIterable, CustomStringConvertible {
        /// `pull` into a DEST with an old version of a file and a file of its own.
        case pull
        /// `pull --delete` after a pull of another manifest, one of whose files the manifest no longer names.
        case pullDelete
        /// `verify --repair` after a pull, with a byte of the large file flipped and a small file removed.
        case verifyRepair
        /// `pull` after a pull killed at its large file's fourth write, whose partial and resume record it continues.
        case resume

        var arguments: [String] {
            switch self {
            case .pull, .resume: ["pull"]
            case .pullDelete: ["pull", "--delete"]
            case .verifyRepair: ["verify", "--repair"]
            }
        }

        var description: String { self == .resume ? "pull resuming" : arguments.joined(separator: " ") }
    }

    /// How one case breaks the run.
    enum Fault: CustomStringConvertible {
        case error(String)
        case kill

        var description: String {
            switch self {
            case .error(let error): "error=\(error)"
            case .kill: "signal=SIGKILL"
            }
        }
    }

    /// A scenario under torture: three files (one of 4 MiB, written in many writes) served by nginx,
    /// DEST holding an old version of one of them and a file of its own, and a sentinel tree beside DEST.
    final class Bench {
        let scenario: Scenario
        let sandbox: Sandbox
        let nginx: NginxServer
        let manifest: String
        /// The manifest `pull --delete`'s DEST was pulled from: `a.bin` and `old/gone.bin`.
        let previous: String
        var sentinel: String { sandbox.root.path + "/sentinel" }
        /// The cases whose process never started (the loader failed).
        private(set) var notStarted = 0
        /// The cases whose healthy rerun resumed a partial with `Range`.
        private(set) var resumedReruns = 0

        init(_ scenario: Scenario) throws {
            self.scenario = scenario
            sandbox = try Sandbox(serving: [
                "a.bin": PullNginxTests.random(1000), "dir/b.bin": PullNginxTests.random(70_000),
                "big.bin": PullNginxTests.random(4 << 20),
            ])
            nginx = try NginxServer(root: sandbox.served)
            manifest = try sandbox.manifest(base: nginx.baseURL)
            let gone = PullNginxTests.random(3000)
            try sandbox.writeServed("old/gone.bin", gone)
            let goneEntry = TestManifest.File(path: "old/gone.bin", size: gone.count, crc32: TestManifest.crc32Hex(gone), url: nil)
            previous = try sandbox.writeManifest(
                sandbox.files.filter { $0.path == "a.bin" } + [goneEntry], base: nginx.baseURL, name: "previous.json")
            try FileManager.default.createDirectory(atPath: sentinel + "/inner", withIntermediateDirectories: true)
            try Data("beside DEST".utf8).write(to: URL(fileURLWithPath: sentinel + "/inner/s.txt"))
        }

        /// DEST as each case starts: an old `a.bin` and `notes.txt`, then what the scenario's healthy runs
        /// and changes make of it.
        func reset() throws {
            try? FileManager.default.removeItem(atPath: sandbox.dest)
            try FileManager.default.createDirectory(atPath: sandbox.dest, withIntermediateDirectories: true)
            try Data("an old a.bin".utf8).write(to: URL(fileURLWithPath: sandbox.dest + "/a.bin"))
            try Data("not assetsync's".utf8).write(to: URL(fileURLWithPath: sandbox.dest + "/notes.txt"))
            switch scenario {
            case .pull:
                break
            case .pullDelete:
                let result = try run(["pull"], manifest: previous)
                try #require(result.status == 0, "\(result.stderr)")
            case .verifyRepair:
                let result = try run(["pull"])
                try #require(result.status == 0, "\(result.stderr)")
                let handle = try #require(FileHandle(forUpdatingAtPath: sandbox.dest + "/big.bin"))
                try handle.seek(toOffset: 1 << 20)
                try handle.write(contentsOf: Data([~sandbox.expected["big.bin"]![1 << 20]]))
                try handle.close()
                try FileManager.default.removeItem(atPath: sandbox.dest + "/dir/b.bin")
            case .resume:
                // Only the lane writing the large file makes four writes (512 KiB each): killed there, its
                // partial holds 1.5 MiB, and the record saved before its first byte.
                let killed = try run(["pull"], prefix: TortureTests.command("pwrite64", .kill, at: 4))
                try #require(killed.status == SIGKILL, "\(killed.stderr)")
                try #require(
                    ((try? FileManager.default.contentsOfDirectory(atPath: sandbox.partialDirectory)) ?? []).contains { $0.hasSuffix(".resume") },
                    "the killed pull left no resume record")
            }
        }

        /// Runs `assetsync ARGUMENTS MANIFEST --dest DEST` (the torture's manifest unless another is given).
        func run(_ arguments: [String], manifest: String? = nil, prefix: [String] = []) throws -> RunResult {
            try AssetSyncBinary.run(
                [arguments[0], manifest ?? self.manifest, "--dest", sandbox.dest] + arguments.dropFirst(), directory: sandbox.root.url,
                environment: Sandbox.environment([:]), prefix: prefix)
        }

        /// For each syscall, the calls the main thread makes before its first call on the sandbox (the
        /// loader's and the runtime's) and the most calls any thread makes, from one traced healthy run.
        func baseline() throws -> [String: (before: Int, most: Int)] {
            try reset()
            return try TortureTests.callCounts(of: TortureTests.targets.map(\.syscall), sandbox: sandbox.root.path) { prefix in
                try run(scenario.arguments, prefix: prefix)
            }
        }

        /// Runs one case (`syscall`'s Kth call broken by `fault`), then a healthy rerun and `verify`; returns
        /// the violations of I1–I5 and whether the injection was reached.
        func torture(_ syscall: String, _ fault: Fault, at k: Int) throws -> (violations: [String], reached: Bool) {
            try reset()
            let invariants = RunInvariants(dest: sandbox.dest, sentinel: sentinel, entries: sandbox.files)
            let result = try run(scenario.arguments, prefix: TortureTests.command(syscall, fault, at: k))
            // Under threads the Kth call may not come in every run: a clean run then is a case not reached.
            let reached: Bool
            let outcome: RunInvariants.Outcome
            switch fault {
            case .error where result.status == 127 && result.stderr.contains(TortureTests.loaderFailure):
                reached = true
                outcome = .notStarted
                notStarted += 1
            case .error:
                reached = true
                outcome = .exits(RunInvariants.documentedStatuses)
            case .kill:
                reached = result.signal != nil
                outcome = reached ? .killed(SIGKILL) : .exits([0])
            }
            let violations = invariants.check(result, outcome: outcome)  // before the rerun changes DEST
            let rerun = try TortureTests.rerun(invariants, nginx: nginx) { try self.run($0) }
            if rerun.requests.contains(where: { $0.range != nil }) { resumedReruns += 1 }
            return (violations + rerun.violations, reached)
        }
    }

    /// I5 after a case: what DEST holds, then a healthy `pull` (with `run`) whose requests `nginx` logs
    /// from an empty access log, then `verify`; the violations of `checkRerun` and `checkRequests`, and
    /// the rerun's requests.
    static func rerun(
        _ invariants: RunInvariants, nginx: NginxServer, run: ([String]) throws -> RunResult
    ) throws -> (violations: [String], requests: [RunInvariants.Request]) {
        let holdings = invariants.holdings()
        // Every request of the case is logged before the log is emptied (a killed client's too: its
        // sockets closed before it was reaped, ahead of the marker's connection).
        _ = nginx.settledAccessLog()
        nginx.clearAccessLog()
        let pull = try run(["pull"])
        let requests = nginx.settledAccessLog().map { RunInvariants.Request($0) }
        return (invariants.checkRerun(pull: pull, verify: try run(["verify"])) + invariants.checkRequests(requests, holdings: holdings), requests)
    }

    /// For each of `names`, the calls the main thread makes before its first call on `sandbox` (the
    /// loader's and the runtime's) and the most calls any thread makes, from one healthy run traced by
    /// `run` with the strace prefix it is given.
    static func callCounts(
        of names: [String], sandbox: String, run: (_ prefix: [String]) throws -> RunResult
    ) throws -> [String: (before: Int, most: Int)] {
        let scratch = try TemporaryDirectory()
        let log = scratch.path + "/strace.log"
        let result = try run([strace, "-f", "-qq", "-s", "0", "-o", log, "-e", "trace=" + names.joined(separator: ",")])
        try #require(result.status == 0, "\(result.stderr)")
        var main: Int32?
        var started = false
        var before: [String: Int] = [:]
        var perThread: [String: [Int32: Int]] = [:]
        for line in try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n") {
            let fields = line.split(separator: " ", maxSplits: 1)  // "  PID   name(arguments) = result"
            guard fields.count == 2, let pid = Int32(fields[0]),
                  let name = fields[1].drop(while: { $0 == " " }).split(separator: "(", maxSplits: 1).first.map(String.init),
                  names.contains(name)
            else { continue }
            if main == nil { main = pid }
            if line.contains(sandbox) { started = true }
            if pid == main && !started { before[name, default: 0] += 1 }
            perThread[name, default: [:]][pid, default: 0] += 1
        }
        try #require(started, "the baseline made no call on \(sandbox)")
        return Dictionary(uniqueKeysWithValues: names.map { ($0, (before[$0] ?? 0, perThread[$0]?.values.max() ?? 0)) })
    }

    /// What the dynamic loader prints when it cannot load a library.
    static let loaderFailure = "error while loading shared libraries"

    /// The strace prefix that breaks `syscall`'s Kth call (per thread) with `fault`.
    static func command(_ syscall: String, _ fault: Fault, at k: Int) -> [String] {
        [strace, "-f", "-qq", "-o", "/dev/null", "-e", "trace=" + syscall, "-e", "inject=\(syscall):\(fault):when=\(k)"]
    }

    /// Runs every case `pick` chooses from each syscall's range of K, recording each violation as an issue;
    /// prints the number of cases and failures.
    static func sweep(_ scenario: Scenario, _ pick: (_ before: Int, _ most: Int) -> [Int]) throws {
        let bench = try Bench(scenario)
        defer { bench.nginx.stop() }
        let counts = try bench.baseline()
        var cases = 0
        var failures = 0
        var unreached = 0
        for (syscall, error) in targets {
            let (before, most) = counts[syscall]!
            guard most > before else {
                print("torture: \(scenario): \(syscall): no call on the sandbox (\(before) before it)")
                continue
            }
            var syscallCases = 0
            var syscallFailures = 0
            for k in pick(before, most) {
                for fault in [Fault.error(error), .kill] {
                    let (violations, reached) = try bench.torture(syscall, fault, at: k)
                    syscallCases += 1
                    if !reached { unreached += 1 }
                    let command = (command(syscall, fault, at: k) + ["assetsync"] + scenario.arguments + ["..."]).joined(separator: " ")
                    if !violations.isEmpty {
                        syscallFailures += 1
                        Issue.record("\(command):\n\(violations.joined(separator: "\n"))")
                    }
                }
            }
            cases += syscallCases
            failures += syscallFailures
            print("torture: \(scenario): \(syscall): \(syscallCases) run, \(syscallFailures) failed; K up to \(most), "
                  + "\(before) calls before the sandbox's first")
        }
        print("torture: \(scenario): \(cases) cases, \(failures) failed, \(bench.notStarted) not started (loader failed), "
              + "\(unreached) kills not reached (the run completed), \(bench.resumedReruns) reruns resumed with Range")
    }

    /// The first and last call of each syscall, with an error and with SIGKILL.
    @Test(.enabled(if: hasStrace, "needs strace"), arguments: Scenario.allCases)
    func subset(_ scenario: Scenario) throws {
        try Self.sweep(scenario) { before, most in Array(Set([before + 1, most])).sorted() }
    }

    /// Every K of every syscall. Long: only with ASSETSYNC_TORTURE=1 (`make torture`).
    @Test(.enabled(if: hasStrace, "needs strace"), .enabled(if: sweepEnabled, "the full sweep runs with ASSETSYNC_TORTURE=1 (make torture)"),
          arguments: Scenario.allCases)
    func fullSweep(_ scenario: Scenario) throws {
        try Self.sweep(scenario) { _, most in Array(1...most) }
    }
}
