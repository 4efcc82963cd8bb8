import Foundation
import Glibc
import Testing
import TestSupport

/// A kill at every system call of the steps that change what DEST is: making a plain DEST atomic,
/// `rollback`, and `--no-atomic`. After each kill DEST still shows one whole version (and the file the
/// user keeps in it), and the next healthy run finishes or undoes what was cut short, leaving no
/// temporary name in the store.
///
/// Which K: as in `TortureTests`, every K from 1 to the most calls any thread made in a traced healthy
/// run with `ASSETSYNC_TORTURE=1` (`make torture`); otherwise the first K past the loader's calls, one
/// in the middle and the last, for each system call.
@Suite(.serialized) struct SwitchTortureTests {
    /// The system calls of the switches: every one `strace -f -c` shows them make on the store.
    static let syscalls = [
        "openat", "mkdirat", "linkat", "symlinkat", "renameat", "renameat2", "unlinkat", "fsync", "fdatasync", "syncfs", "newfstatat", "flock",
    ]

    enum Scenario: String, CaseIterable, CustomStringConvertible {
        /// `pull --atomic` of the second version into a plain DEST holding the first.
        case makeAtomic
        /// `rollback` from the second version's generation to the first's.
        case rollback
        /// `pull --no-atomic` of the second version into an atomic DEST showing the first.
        case makePlain

        var description: String {
            switch self {
            case .makeAtomic: "pull --atomic of a plain dest"
            case .rollback: "rollback"
            case .makePlain: "pull --no-atomic"
            }
        }
    }

    /// Two versions of four files served by nginx, and DEST as a scenario starts.
    final class Bench {
        let scenario: Scenario
        let versions: TwoVersions
        var dest: String { versions.sandbox.dest }
        let mine = Data("the user's own file".utf8)

        init(_ scenario: Scenario) throws {
            self.scenario = scenario
            versions = try TwoVersions(count: 4, size: 3000)
        }

        func pull(_ version: Int, _ options: [String] = [], prefix: [String] = []) throws -> RunResult {
            try AssetSyncBinary.run(["pull", versions.manifests[version], "--dest", dest] + options, prefix: prefix)
        }

        /// The run under torture.
        func tortured(prefix: [String]) throws -> RunResult {
            switch scenario {
            case .makeAtomic: try pull(1, ["--atomic"], prefix: prefix)
            case .rollback: try AssetSyncBinary.run(["rollback", "--dest", dest], prefix: prefix)
            case .makePlain: try pull(1, ["--no-atomic"], prefix: prefix)
            }
        }

        /// DEST as the scenario starts, with the user's file in it.
        func reset() throws {
            try? FileManager.default.removeItem(atPath: dest)
            try? FileManager.default.removeItem(atPath: dest + ".assetsync")
            switch scenario {
            case .makeAtomic:
                try #require(try pull(0).status == 0)
            case .rollback:
                // The user's file is in both generations: the one rolled back to has it too.
                try #require(try pull(0, ["--atomic", "--keep", "3"]).status == 0)
                try mine.write(to: URL(fileURLWithPath: dest + "/mine.txt"))
                try #require(try pull(1).status == 0)
            case .makePlain:
                try #require(try pull(0, ["--atomic"]).status == 0)
            }
            try mine.write(to: URL(fileURLWithPath: dest + "/mine.txt"))
        }

        /// What DEST shows: the version of its manifest files (nil when mixed or incomplete), and whether
        /// the user's file is there.
        func shown() throws -> (version: Int?, mine: Bool) {
            var files = try versions.sandbox.cached()
            let mine = files.removeValue(forKey: "mine.txt") == self.mine
            return (versions.version(of: files), mine)
        }

        /// Whether each manifest file DEST holds is that file of one version or the other.
        func filesAreEachOfAVersion() -> Bool {
            let files = (try? versions.sandbox.cached()) ?? [:]
            return versions.contents[0].keys.allSatisfy { path in versions.contents.contains { $0[path] == files[path] } }
        }

        /// Names in the store that only an unfinished step leaves.
        func leftovers() -> [String] {
            ((try? FileManager.default.contentsOfDirectory(atPath: dest + ".assetsync")) ?? [])
                .filter { !$0.hasPrefix("gen-") && $0 != ".assetsync" }.sorted()
        }

        /// One case: the Kth call of `syscall` kills the run; returns what is wrong, and whether the kill came.
        func torture(_ syscall: String, at k: Int) throws -> (violations: [String], reached: Bool) {
            try reset()
            let killed = try tortured(prefix: TortureTests.command(syscall, .kill, at: k))
            let reached = killed.signal == SIGKILL
            var violations: [String] = []
            if !reached, killed.status != 0 { violations.append("the run exited \(killed.status) unkilled: \(killed.stderr)") }
            // Atomic until the switch back to plain is done; after it, a plain pull changes file by file.
            let after = try shown()
            if after.version == nil, scenario != .makePlain || !filesAreEachOfAVersion() {
                violations.append("after the kill DEST shows no whole version")
            }
            if !after.mine { violations.append("after the kill DEST lacks the user's file") }
            // The healthy run after: the same switch asked again (a rollback is checked by the pull after it).
            let healthy = scenario == .rollback ? try pull(0) : try tortured(prefix: [])
            if healthy.status != 0 { violations.append("the next run exited \(healthy.status): \(healthy.stderr)") }
            let end = try shown()
            let wanted = scenario == .rollback ? 0 : 1
            if end.version != wanted { violations.append("the next run left DEST showing \(end.version.map { "version \($0 + 1)" } ?? "no whole version")") }
            if !end.mine { violations.append("the next run left DEST without the user's file") }
            let isLink = Sandbox.kind(dest) == S_IFLNK
            if isLink == (scenario == .makePlain) { violations.append("DEST is \(isLink ? "a symlink" : "a directory") after the next run") }
            if !leftovers().isEmpty { violations.append("the store keeps \(leftovers())") }
            if scenario == .makePlain, FileManager.default.fileExists(atPath: dest + ".assetsync/.assetsync/generations") {
                violations.append("the atomic mode is still recorded")
            }
            let verify = try AssetSyncBinary.run(["verify", versions.manifests[wanted], "--dest", dest])
            if verify.status != 0 { violations.append("verify exited \(verify.status): \(verify.stderr)") }
            let plain = try pull(wanted)
            if plain.status != 0 { violations.append("a pull without options exited \(plain.status): \(plain.stderr)") }
            return (violations, reached)
        }
    }

    static func sweep(_ scenario: Scenario, _ pick: (_ before: Int, _ most: Int) -> [Int]) throws {
        let bench = try Bench(scenario)
        defer { bench.versions.nginx.stop() }
        try bench.reset()
        let counts = try TortureTests.callCounts(of: syscalls, sandbox: bench.versions.sandbox.root.path) { prefix in
            try bench.tortured(prefix: prefix)
        }
        var cases = 0
        var failures = 0
        var unreached = 0
        for syscall in syscalls {
            let (before, most) = counts[syscall]!
            guard most > before else { continue }
            for k in pick(before, most) {
                let (violations, reached) = try bench.torture(syscall, at: k)
                cases += 1
                if !reached { unreached += 1 }
                if !violations.isEmpty {
                    failures += 1
                    Issue.record("\(scenario): killed at \(syscall) call \(k):\n\(violations.joined(separator: "\n"))")
                }
            }
        }
        print("torture: \(scenario): \(cases) cases, \(failures) failed, \(unreached) kills not reached (the run completed)")
    }

    @Test(.enabled(if: TortureTests.hasStrace, "needs strace"), arguments: Scenario.allCases)
    func killedAtTheFirstMiddleAndLastCallTheSwitchIsFinished(_ scenario: Scenario) throws {
        try Self.sweep(scenario) { before, most in Array(Set([before + 1, (before + 1 + most) / 2, most])).sorted() }
    }

    @Test(.enabled(if: TortureTests.hasStrace, "needs strace"),
          .enabled(if: TortureTests.sweepEnabled, "the full sweep runs with ASSETSYNC_TORTURE=1 (make torture)"),
          arguments: Scenario.allCases)
    func killedAtEveryCallTheSwitchIsFinished(_ scenario: Scenario) throws {
        try Self.sweep(scenario) { _, most in Array(1...most) }
    }
}
