import Foundation
import Glibc

/// The invariants I1–I5 of docs/reliability.md, checked after any run that may have failed or been killed:
/// one checker for every torture case. Take it before the run (it snapshots DEST and the sentinel
/// tree beside DEST), then call `check(_:outcome:)` and `checkRerun(pull:verify:)`; each returns
/// the violations it found as readable lines (empty when every invariant holds).
struct RunInvariants {
    /// A file's identity for "unchanged": its size and CRC-32.
    struct Fingerprint: Equatable, CustomStringConvertible {
        var size: Int
        var crc32: String
        var description: String { "\(size) bytes, CRC-32 \(crc32)" }

        init(size: Int, crc32: String) {
            self.size = size
            self.crc32 = crc32
        }

        init(_ data: Data) { self.init(size: data.count, crc32: TestManifest.crc32Hex(data)) }
    }

    /// What a run may end with (I4).
    enum Outcome {
        /// It exits with one of `statuses`; a non-zero one comes with a message naming an entry or the cause.
        case exits(Set<Int32>)
        /// It is killed by `signal` (strace kills itself with the signal that killed its tracee).
        case killed(Int32)
        /// It was asked to stop (SIGTERM, SIGINT): exit 130 with the `Interrupted:` line saying what was kept.
        case interrupted
        /// The dynamic loader could not start it (exit 127): none of assetsync's code ran.
        case notStarted
    }

    /// The exit statuses a failed run may have (DESIGN.md, exit codes): 0, 1 (some files not synced),
    /// 3 (local I/O failure), 4 (another run holds the lock); and 2 only for a manifest that cannot be
    /// opened (`isUnreadableManifest`).
    static let documentedStatuses: Set<Int32> = [0, 1, 3, 4]

    let dest: String
    let sentinel: String
    /// The manifest's entries: path to size and CRC-32.
    let entries: [String: Fingerprint]
    /// DEST before the run (outside `.assetsync/`), relative path to fingerprint.
    let destBefore: [String: Fingerprint]
    let sentinelBefore: [String: Fingerprint]

    init(dest: String, sentinel: String, entries: [TestManifest.File]) {
        self.dest = dest
        self.sentinel = sentinel
        self.entries = Dictionary(
            entries.map { ($0.path, Fingerprint(size: $0.size, crc32: $0.crc32)) }, uniquingKeysWith: { first, _ in first })
        destBefore = Self.snapshot(dest).filter { !Self.isMetadata($0.key) }
        sentinelBefore = Self.snapshot(sentinel)
    }

    /// Every regular file under `root`, by path relative to it; symlinks and other special files
    /// are listed with size -1 so that they never match a manifest entry.
    static func snapshot(_ root: String) -> [String: Fingerprint] {
        var found: [String: Fingerprint] = [:]
        func walk(_ relative: String) {
            let absolute = relative.isEmpty ? root : root + "/" + relative
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: absolute) else { return }
            for name in names {
                let child = relative.isEmpty ? name : relative + "/" + name
                switch Sandbox.kind(root + "/" + child) {
                case S_IFDIR: walk(child)
                case S_IFREG: found[child] = Fingerprint(FileManager.default.contents(atPath: root + "/" + child) ?? Data())
                default: found[child] = Fingerprint(size: -1, crc32: "special")
                }
            }
        }
        walk("")
        return found
    }

    static func isMetadata(_ relative: String) -> Bool { relative == ".assetsync" || relative.hasPrefix(".assetsync/") }

    /// Whether a name under `.assetsync/` is a temporary file (a partial or an atomic replacement's temporary).
    static func isTemporary(_ relative: String) -> Bool {
        let name = relative.split(separator: "/").last.map(String.init) ?? relative
        return name.hasSuffix(".part") || name.contains(".tmp-") || name.hasSuffix(".tmp")
    }

    /// The temporary files under `.assetsync/` of a DEST `snapshot` that are not under `.assetsync/partial/`.
    static func misplacedTemporaries(_ snapshot: [String: Fingerprint]) -> [String] {
        snapshot.keys.filter { isMetadata($0) && isTemporary($0) && !$0.hasPrefix(".assetsync/partial/") }.sorted()
    }

    /// I1–I4 after a run that ended with `result`.
    func check(_ result: RunResult, outcome: Outcome) -> [String] {
        var violations: [String] = []
        let after = Self.snapshot(dest)
        // I1: every final path is absent, holds its old bytes, or matches its manifest entry.
        for (path, right) in entries.sorted(by: { $0.key < $1.key }) {
            guard let found = after[path], found != right, found != destBefore[path] else { continue }
            violations.append("I1: '\(path)' holds \(found), neither its old bytes nor the manifest's (\(right))")
        }
        // I2: nothing outside DEST changed.
        let sentinelAfter = Self.snapshot(sentinel)
        if sentinelAfter != sentinelBefore {
            let changed = Set(sentinelAfter.keys).union(sentinelBefore.keys).filter { sentinelAfter[$0] != sentinelBefore[$0] }
            violations.append("I2: the sentinel tree beside DEST changed: \(changed.sorted())")
        }
        // I3: nothing in DEST but the manifest's paths, what was there before, and metadata, with
        // temporary files only under `.assetsync/partial/`.
        violations += Self.misplacedTemporaries(after).map { "I3: a temporary file outside .assetsync/partial/: '\($0)'" }
        for path in after.keys.sorted() where !Self.isMetadata(path) && entries[path] == nil && destBefore[path] == nil {
            violations.append("I3: '\(path)' is neither a manifest path nor a file that was there before")
        }
        // I4: the documented outcome, and a message that says what failed.
        switch outcome {
        case .killed(let signal):
            if result.signal != signal {
                violations.append("I4: expected to be killed by signal \(signal), \(Self.ending(result)): \(result.stderr)")
            }
        case _ where result.signal != nil:
            violations.append("I4: \(Self.ending(result)), not an exit (a crash): \(result.stderr)")
        case .interrupted:
            if result.status != 130 || !result.stderr.contains("Interrupted: partial downloads are kept") {
                violations.append("I4: expected exit 130 with the 'Interrupted:' line, \(Self.ending(result)): \(result.stderr)")
            }
        case .notStarted:
            if result.status != 127 {
                violations.append("I4: expected the loader to fail (exit 127), \(Self.ending(result)): \(result.stderr)")
            }
        case .exits(let statuses):
            if !statuses.contains(result.status) && !Self.isUnreadableManifest(result) {
                violations.append("I4: exit status \(result.status) is not one of \(statuses.sorted()): \(result.stderr)")
            } else if result.status != 0 && !Self.explainsFailure(result.stderr, entries: Array(entries.keys)) {
                violations.append("I4: exit status \(result.status) without an error naming an entry or the cause: '\(result.stderr)'")
            }
        }
        return violations
    }

    /// "exited with 3" or "was killed by signal 4".
    static func ending(_ result: RunResult) -> String {
        result.signal.map { "was killed by signal \($0)" } ?? "exited with \(result.status)"
    }

    /// Whether the run stopped because its local manifest could not be opened: exit 2 with
    /// `Error: <manifest>: cannot open the manifest: <reason>`, as docs/troubleshooting.md documents it.
    static func isUnreadableManifest(_ result: RunResult) -> Bool {
        result.status == 2 && result.stderr.hasPrefix("Error: ") && result.stderr.contains(": cannot open the manifest: ")
    }

    /// Whether `stderr` says that something failed and names what and why: an `Error: …: cause` line, a
    /// `failed   <entry>: cause` line, or a `<path>: cause` line in the `Failed:` summary block.
    static func explainsFailure(_ stderr: String, entries: [String]) -> Bool {
        var inFailedBlock = false
        for line in stderr.split(separator: "\n") {
            if line == "Failed:" {
                inFailedBlock = true
                continue
            }
            if !line.hasPrefix(" ") { inFailedBlock = false }
            let parts = line.trimmingCharacters(in: .whitespaces).split(separator: ":", maxSplits: 1)
            guard parts.count == 2, !parts[1].trimmingCharacters(in: .whitespaces).isEmpty else { continue }
            let named = line.hasPrefix("failed ") && entries.contains { parts[0].hasSuffix(" " + $0) }
            if line.hasPrefix("Error") || named || inFailedBlock { return true }
        }
        return false
    }

    /// I5: a rerun against a healthy server (`pull`) exits 0, and then `verify` exits 0 and reports every
    /// file of the manifest good, which DEST's final paths confirm; no temporary is left outside `partial/`.
    func checkRerun(pull: RunResult, verify: RunResult) -> [String] {
        var violations: [String] = []
        if pull.status != 0 { violations.append("I5: the rerun exited \(pull.status): \(pull.stderr)") }
        let summary = "Verified \(entries.count) files: \(entries.count) good, 0 missing, 0 corrupt;"
        if verify.status != 0 || !(verify.stdout + verify.stderr).contains(summary) {
            violations.append("I5: verify after the rerun did not report '\(summary)' (exit \(verify.status)): \(verify.stdout)\(verify.stderr)")
        }
        let after = Self.snapshot(dest)
        for (path, right) in entries.sorted(by: { $0.key < $1.key }) where after[path] != right {
            violations.append("I5: after the rerun '\(path)' holds \(after[path].map(\.description) ?? "nothing"), not \(right)")
        }
        violations += Self.misplacedTemporaries(after).map { "I5: the rerun left a temporary file outside .assetsync/partial/: '\($0)'" }
        return violations
    }
}
