import Foundation
import Glibc
import Testing
import TestSupport

/// Crash consistency in the spirit of ALICE: real pulls are recorded with strace, and `CommitRules`
/// checks over the recorded calls that every commit is durable in the right order (R1–R4, resume records).
@Suite struct CrashConsistencyTests {
    static let strace = "/usr/bin/strace"
    static let hasStrace = FileManager.default.isExecutableFile(atPath: strace)

    /// The calls the rules are about, and `clone`s, which tell which threads share descriptors.
    static let tracedCalls = "openat,write,pwrite64,fsync,fdatasync,syncfs,renameat,renameat2,unlinkat,mkdirat,close,linkat,clone,clone3"

    /// What a traced run did, and what the rules found in it.
    struct TracedRun {
        var result: RunResult
        var timeline: FileTimeline
        var violations: [CommitRules.Violation]
        /// The final paths (relative to DEST) that files were renamed onto, in order.
        var committed: [String]
        var log: String
        /// DEST as the trace names it.
        var dest: String
    }

    /// Runs the binary with `arguments` under strace and checks every rule over its calls.
    static func traced(_ arguments: [String], dest: String, environment: [String: String]? = nil) throws -> TracedRun {
        let scratch = try TemporaryDirectory()
        let logPath = scratch.path + "/strace.log"
        let result = try AssetSyncBinary.run(
            arguments, environment: environment, prefix: [strace, "-f", "-y", "-tt", "-qq", "-s", "0", "-o", logPath, "-e", "trace=" + tracedCalls])
        let log = try String(contentsOfFile: logPath, encoding: .utf8)
        let timeline = FileTimeline(StraceLog(log))
        // `-y` prints resolved paths: the temporary directory may lie behind a symlink.
        let rules = CommitRules(dest: URL(fileURLWithPath: dest).resolvingSymlinksInPath().path)
        let committed = timeline.operations.compactMap { operation -> String? in
            guard case .rename = operation.kind, rules.isFinal(operation.path) else { return nil }
            return String(operation.path.dropFirst(rules.dest.count + 1))
        }
        return TracedRun(
            result: result, timeline: timeline, violations: rules.check(timeline), committed: committed, log: log, dest: rules.dest)
    }

    /// Expects a successful run that broke no rule and committed exactly `paths` (in any order).
    static func expectClean(_ run: TracedRun, committed paths: [String], sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(run.result.status == 0, "\(run.result.stderr)", sourceLocation: sourceLocation)
        #expect(run.violations.isEmpty, "\(run.violations.map(\.description).joined(separator: "\n"))", sourceLocation: sourceLocation)
        #expect(run.committed.sorted() == paths.sorted(), sourceLocation: sourceLocation)
        // The index was replaced, so R2 and R3 had a state index to check against.
        #expect(run.timeline.operations.contains { $0.isRename(to: CommitRules.parent(of: $0.path) + "/state") },
                sourceLocation: sourceLocation)
    }

    /// The rules broken by `run`'s trace without the lines that `drop` picks: the checker, shown to fail on a real trace.
    static func violations(in run: TracedRun, dropping drop: (Substring) -> Bool) -> [CommitRules.Violation] {
        let kept = run.log.split(separator: "\n", omittingEmptySubsequences: false).filter { !drop($0) }
        return CommitRules(dest: run.dest).check(FileTimeline(StraceLog(kept.joined(separator: "\n"))))
    }

    /// Whether a trace line is an fsync, fdatasync or syncfs call.
    static func isSync(_ line: Substring) -> Bool {
        [" fsync(", " fdatasync(", " syncfs("].contains { line.contains($0) }
    }

    // MARK: - Real runs

    /// One large file, written in several writes by the writer pool (some through an O_DIRECT descriptor).
    @Test(.enabled(if: hasStrace, "needs strace"))
    func oneLargeFile() throws {
        let sandbox = try Sandbox(serving: ["big.bin": PullNginxTests.random(6 << 20)])
        let nginx = try NginxServer(root: sandbox.served)
        defer { nginx.stop() }
        let run = try Self.traced(["pull", sandbox.manifest(base: nginx.baseURL), "--dest", sandbox.dest], dest: sandbox.dest)
        Self.expectClean(run, committed: ["big.bin"])
        #expect(run.timeline.operations.filter { $0.kind == .write && $0.path.hasSuffix(".part") }.count > 2)
        let unsynced = Self.violations(in: run) { Self.isSync($0) && $0.contains(".part>") }
        #expect(unsynced.map(\.rule) == [.dataSyncedBeforeRename])
        #expect(try sandbox.cached() == sandbox.expected)
    }

    /// One large file in four segments, written by several connections into one partial.
    @Test(.enabled(if: hasStrace, "needs strace"))
    func segmentedLargeFile() throws {
        let sandbox = try Sandbox(serving: ["big.bin": PullNginxTests.random(4 << 20)])
        let nginx = try NginxServer(root: sandbox.served)
        defer { nginx.stop() }
        let run = try Self.traced(
            ["pull", sandbox.manifest(base: nginx.baseURL), "--dest", sandbox.dest], dest: sandbox.dest,
            environment: Sandbox.environment(PullSegmentTests.segmented))
        Self.expectClean(run, committed: ["big.bin"])
        #expect(Set(nginx.settledAccessLog().compactMap(\.range)) == Set(PullSegmentTests.segmentRanges))
        #expect(try sandbox.cached() == sandbox.expected)
    }

    /// A complete partial left by a run killed before its commit (strace: SIGKILL at the commit's `renameat`,
    /// after the resume record's) is committed by the next run, which must sync it itself (R1).
    @Test(.enabled(if: hasStrace, "needs strace"))
    func partialLeftByAKilledRun() throws {
        let sandbox = try Sandbox(serving: ["a.bin": PullNginxTests.random(300_000)])
        let nginx = try NginxServer(root: sandbox.served)
        defer { nginx.stop() }
        let manifest = try sandbox.manifest(base: nginx.baseURL)
        let killed = try PullSchedulingTests.pullKilledAtTheCommitRename(manifest, into: sandbox.dest)
        #expect(killed.status != 0)
        #expect(sandbox.partialSizes() == [300_000])
        let run = try Self.traced(["pull", manifest, "--dest", sandbox.dest], dest: sandbox.dest)
        Self.expectClean(run, committed: ["a.bin"])
        #expect(!run.timeline.operations.contains { $0.kind == .write && $0.path.hasSuffix(".part") })
        #expect(try sandbox.cached() == sandbox.expected)
    }

    /// Many small files, written by writer threads after their downloads and committed in groups with one
    /// syncfs, and an empty file.
    @Test(.enabled(if: hasStrace, "needs strace"))
    func manySmallFilesInGroups() throws {
        var files: [String: Data] = [:]
        // New directories, some inside other new ones: each must be durable in its parent (R2).
        for index in 0..<300 { files["d\(index % 7)/\(index % 2 == 0 ? "" : "deep/")f\(index).bin"] = PullNginxTests.random(1000 + index) }
        files["empty.cfg"] = Data()  // committed on its own path: created in `partial/`, one syncfs, renamed
        let sandbox = try Sandbox(serving: files)
        let nginx = try NginxServer(root: sandbox.served)
        defer { nginx.stop() }
        let run = try Self.traced(["pull", sandbox.manifest(base: nginx.baseURL), "--dest", sandbox.dest], dest: sandbox.dest)
        Self.expectClean(run, committed: Array(files.keys))
        #expect(run.timeline.operations.contains { $0.kind == .syncFileSystem })
        let unsynced = Self.violations(in: run) { Self.isSync($0) && $0.contains(" syncfs(") }
        #expect(unsynced.count == files.count && unsynced.allSatisfy { $0.rule == .dataSyncedBeforeRename })
        #expect(try sandbox.cached() == sandbox.expected)
    }

    /// `pull --delete`: files removed and others committed in one run.
    @Test(.enabled(if: hasStrace, "needs strace"))
    func pullDelete() throws {
        let sandbox = try Sandbox(serving: ["keep.bin": PullNginxTests.random(5000), "old/gone.bin": PullNginxTests.random(3000)])
        let nginx = try NginxServer(root: sandbox.served)
        defer { nginx.stop() }
        let first = try AssetSyncBinary.run(["pull", sandbox.manifest(base: nginx.baseURL), "--dest", sandbox.dest])
        #expect(first.status == 0, "\(first.stderr)")
        let remaining = sandbox.files.filter { $0.path != "old/gone.bin" }
        try sandbox.writeServed("new.bin", PullNginxTests.random(400_000))
        let added = TestManifest.File(
            path: "new.bin", size: 400_000,
            crc32: TestManifest.crc32Hex(try Data(contentsOf: sandbox.served.appendingPathComponent("new.bin"))), url: nil)
        let manifest = try sandbox.writeManifest(remaining + [added], base: nginx.baseURL, name: "second.json")
        let run = try Self.traced(["pull", manifest, "--dest", sandbox.dest, "--delete"], dest: sandbox.dest)
        Self.expectClean(run, committed: ["new.bin"])
        #expect(run.timeline.operations.contains { $0.kind == .unlink && $0.path.hasSuffix("/old/gone.bin") })
        #expect(sandbox.finalContent("old/gone.bin") == nil)
    }

    /// `verify --repair` of a file whose bytes were corrupted in place.
    @Test(.enabled(if: hasStrace, "needs strace"))
    func verifyRepair() throws {
        let sandbox = try Sandbox(serving: ["a.bin": PullNginxTests.random(300_000), "b.bin": PullNginxTests.random(2000)])
        let nginx = try NginxServer(root: sandbox.served)
        defer { nginx.stop() }
        let manifest = try sandbox.manifest(base: nginx.baseURL)
        let first = try AssetSyncBinary.run(["pull", manifest, "--dest", sandbox.dest])
        #expect(first.status == 0, "\(first.stderr)")
        let handle = try #require(FileHandle(forUpdatingAtPath: sandbox.dest + "/a.bin"))
        try handle.seek(toOffset: 1234)
        try handle.write(contentsOf: Data([~sandbox.expected["a.bin"]![1234]]))
        try handle.close()
        let run = try Self.traced(["verify", manifest, "--dest", sandbox.dest, "--repair"], dest: sandbox.dest)
        Self.expectClean(run, committed: ["a.bin"])
        let unsyncedDirectory = Self.violations(in: run) { Self.isSync($0) && $0.hasSuffix("/dest>) = 0") }
        #expect(unsyncedDirectory.map(\.rule) == [.directorySyncedBeforeIndex])
        #expect(try sandbox.cached() == sandbox.expected)
    }

    /// A manifest given as a URL: its cached copy and meta under `.assetsync/` are replaced durably too (R3).
    @Test(.enabled(if: hasStrace, "needs strace"))
    func remoteManifest() throws {
        let sandbox = try Sandbox(serving: ["a.bin": PullNginxTests.random(70_000), "dir/b.bin": PullNginxTests.random(1000)])
        let nginx = try NginxServer(root: sandbox.served)
        defer { nginx.stop() }
        try sandbox.serveManifest(base: nginx.baseURL)
        let run = try Self.traced(["pull", nginx.url("manifest.json"), "--dest", sandbox.dest], dest: sandbox.dest)
        Self.expectClean(run, committed: ["a.bin", "dir/b.bin"])
        let metadataRenames = run.timeline.operations.filter {
            guard case .rename = $0.kind else { return false }
            return CommitRules.name(of: CommitRules.parent(of: $0.path)) == ".assetsync"
        }
        #expect(metadataRenames.count >= 3)  // the manifest's copy, its meta, the state index
        let unsyncedCopy = Self.violations(in: run) { Self.isSync($0) && $0.contains("/.assetsync/partial/manifest.tmp-") }
        #expect(unsyncedCopy.map(\.rule) == [.metadataReplacedDurably])
        #expect(try sandbox.cached() == sandbox.expected)
    }

    // MARK: - The checker catches each broken rule

    /// A pull of one file by a writer thread (which shares the main thread's descriptors), its resume
    /// record, its commit and the state index, as strace prints them; every rule holds.
    static let goodTrace = """
        100 05:00:00.000001 openat(AT_FDCWD</w>, "/d", O_RDONLY|O_CLOEXEC|O_DIRECTORY) = 3</d>
        100 05:00:00.000002 openat(3</d>, ".assetsync", O_RDONLY|O_NOFOLLOW|O_CLOEXEC|O_DIRECTORY) = 4</d/.assetsync>
        100 05:00:00.000003 openat(4</d/.assetsync>, "partial", O_RDONLY|O_NOFOLLOW|O_CLOEXEC|O_DIRECTORY) = 5</d/.assetsync/partial>
        100 05:00:00.000004 clone3({flags=CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|CLONE_THREAD, child_tid=0x1} => {parent_tid=[101]}, 88) = 101
        101 05:00:00.000005 openat(5</d/.assetsync/partial>, "a.part", O_RDWR|O_CREAT|O_NOFOLLOW|O_CLOEXEC, 0600) = 6</d/.assetsync/partial/a.part>
        101 05:00:00.000006 openat(5</d/.assetsync/partial>, "a.resume.tmp-x1", O_WRONLY|O_CREAT|O_EXCL|O_NOFOLLOW|O_CLOEXEC, 0600) = 7</d/.assetsync/partial/a.resume.tmp-x1>
        101 05:00:00.000007 write(7</d/.assetsync/partial/a.resume.tmp-x1>, ""..., 139) = 139
        101 05:00:00.000008 renameat(5</d/.assetsync/partial>, "a.resume.tmp-x1", 5</d/.assetsync/partial>, "a.resume") = 0
        101 05:00:00.000009 close(7</d/.assetsync/partial/a.resume>) = 0
        101 05:00:00.000010 pwrite64(6</d/.assetsync/partial/a.part>, ""..., 524288, 0 <unfinished ...>
        100 05:00:00.000011 openat(3</d>, "sub", O_RDONLY|O_NOFOLLOW|O_CLOEXEC|O_DIRECTORY) = 8</d/sub>
        101 05:00:00.000012 <... pwrite64 resumed>) = 524288
        101 05:00:00.000013 pwrite64(6</d/.assetsync/partial/a.part>, ""..., 1000, 524288) = 1000
        100 05:00:00.000014 fdatasync(6</d/.assetsync/partial/a.part>) = 0
        100 05:00:00.000015 renameat(5</d/.assetsync/partial>, "a.part", 8</d/sub>, "a.bin") = 0
        100 05:00:00.000016 fsync(8</d/sub>) = 0
        100 05:00:00.000017 close(6</d/sub/a.bin>) = 0
        100 05:00:00.000018 openat(5</d/.assetsync/partial>, "state.tmp-y2", O_WRONLY|O_CREAT|O_EXCL|O_NOFOLLOW|O_CLOEXEC, 0644) = 6</d/.assetsync/partial/state.tmp-y2>
        100 05:00:00.000019 write(6</d/.assetsync/partial/state.tmp-y2>, ""..., 249) = 249
        100 05:00:00.000020 fdatasync(6</d/.assetsync/partial/state.tmp-y2>) = 0
        100 05:00:00.000021 renameat(5</d/.assetsync/partial>, "state.tmp-y2", 4</d/.assetsync>, "state") = 0
        100 05:00:00.000022 fsync(4</d/.assetsync>) = 0
        100 05:00:00.000023 close(6</d/.assetsync/state>) = 0
        100 05:00:00.000024 +++ exited with 0 +++
        """

    static func violations(in trace: String) -> [CommitRules.Violation] {
        CommitRules(dest: "/d").check(FileTimeline(StraceLog(trace)))
    }

    /// `trace` with each line that starts with `line`'s number (1-based) replaced by `replacement` (removed when nil).
    static func edit(_ trace: String, _ edits: [Int: String?]) -> String {
        var lines = trace.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        for (line, replacement) in edits.sorted(by: { $0.key > $1.key }) {
            if let replacement { lines[line - 1] = replacement } else { lines.remove(at: line - 1) }
        }
        return lines.joined(separator: "\n")
    }

    @Test func theGoodTraceBreaksNoRule() {
        #expect(Self.violations(in: Self.goodTrace).isEmpty)
        let timeline = FileTimeline(StraceLog(Self.goodTrace))
        // The writes of the writer thread, the split one included, are on the partial that became sub/a.bin.
        let partial = timeline.operations.first { $0.isRename(to: "/d/sub/a.bin") }?.file
        #expect(partial != nil && timeline.operations.filter { $0.kind == .write && $0.file == partial }.count == 2)
    }

    @Test func r1CatchesARenameWithoutADataSync() {
        let found = Self.violations(in: Self.edit(Self.goodTrace, [14: nil]))
        #expect(found.map(\.rule) == [.dataSyncedBeforeRename])
        #expect(found.first?.text.contains("renameat(5</d/.assetsync/partial>, \"a.part\"") == true)
    }

    @Test func r1CatchesASyncBeforeTheLastWrite() {
        // The sync starts while the first write is still running, and the second write follows it.
        let trace = Self.edit(Self.goodTrace, [
            11: "100 05:00:00.000011 fdatasync(6</d/.assetsync/partial/a.part>) = 0",
            14: "100 05:00:00.000014 openat(3</d>, \"sub\", O_RDONLY|O_NOFOLLOW|O_CLOEXEC|O_DIRECTORY) = 8</d/sub>",
        ])
        let found = Self.violations(in: trace)
        #expect(found.map(\.rule) == [.dataSyncedBeforeRename])
        #expect(found.first?.line == 15)
    }

    @Test func r2CatchesAMissingDirectorySync() {
        let found = Self.violations(in: Self.edit(Self.goodTrace, [16: nil]))
        #expect(found.map(\.rule) == [.directorySyncedBeforeIndex])
        #expect(found.first?.line == 15)
    }

    @Test func r2CatchesADirectorySyncAfterTheIndex() {
        let trace = Self.edit(Self.goodTrace, [
            16: "100 05:00:00.000016 close(7</d/.assetsync/partial/a.resume>) = 0",
            22: "100 05:00:00.000022 fsync(8</d/sub>) = 0\n100 05:00:00.000022 fsync(4</d/.assetsync>) = 0",
        ])
        #expect(Self.violations(in: trace).map(\.rule) == [.directorySyncedBeforeIndex])
    }

    @Test func r2CatchesADirectoryMadeOnTheWayAndNotMadeDurable() {
        let made = "100 05:00:00.000011 mkdirat(3</d>, \"sub\", 0755) = 0\n" + Self.goodTrace.split(separator: "\n")[10]
        let found = Self.violations(in: Self.edit(Self.goodTrace, [11: made]))
        #expect(found.map(\.rule) == [.directorySyncedBeforeIndex])
        #expect(found.first?.detail.contains("/d/sub was made") == true)
        // Its parent fsynced after the mkdirat and before the state index: the rule holds.
        let synced = Self.edit(Self.goodTrace, [11: made, 16: "100 05:00:00.000016 fsync(8</d/sub>) = 0\n100 05:00:00.000016 fsync(3</d>) = 0"])
        #expect(Self.violations(in: synced).isEmpty)
    }

    @Test func r3CatchesAnIndexRenamedWithoutASync() {
        let found = Self.violations(in: Self.edit(Self.goodTrace, [20: nil]))
        #expect(found.map(\.rule) == [.metadataReplacedDurably])
        #expect(found.first?.text.contains("\"state\"") == true)
    }

    @Test func r3CatchesAnIndexWrittenInPlace() {
        let trace = Self.edit(Self.goodTrace, [
            18: "100 05:00:00.000018 openat(4</d/.assetsync>, \"state\", O_WRONLY|O_CREAT|O_TRUNC|O_CLOEXEC, 0644) = 6</d/.assetsync/state>",
            19: "100 05:00:00.000019 write(6</d/.assetsync/state>, \"\"..., 249) = 249",
            20: "100 05:00:00.000020 fdatasync(6</d/.assetsync/state>) = 0",
            21: nil,
        ])
        let found = Self.violations(in: trace)
        #expect(found.map(\.rule) == [.metadataReplacedDurably])
        #expect(found.first?.line == 18)
    }

    /// What earlier versions did: the temporary made beside the index, so a kill left it outside `partial/`.
    @Test func r3CatchesAnIndexStagedBesideItself() {
        let trace = Self.goodTrace
            .replacingOccurrences(of: "5</d/.assetsync/partial>, \"state.tmp-y2\"", with: "4</d/.assetsync>, \"state.tmp-y2\"")
            .replacingOccurrences(of: "/d/.assetsync/partial/state.tmp-y2", with: "/d/.assetsync/state.tmp-y2")
        let found = Self.violations(in: trace)
        #expect(found.map(\.rule) == [.metadataReplacedDurably, .metadataReplacedDurably])
        #expect(found.map(\.line) == [18, 21])
    }

    @Test func r3CatchesAMissingDirectorySyncAfterTheIndex() {
        #expect(Self.violations(in: Self.edit(Self.goodTrace, [22: nil])).map(\.rule) == [.metadataReplacedDurably])
    }

    @Test func r4CatchesAFileRenamedFromOutsidePartial() {
        // The same file, made, written and synced outside `partial/` (in the working directory).
        let trace = Self.goodTrace
            .replacingOccurrences(of: "5</d/.assetsync/partial>, \"a.part\"", with: "AT_FDCWD</w>, \"a.part\"")
            .replacingOccurrences(of: "6</d/.assetsync/partial/a.part>", with: "6</w/a.part>")
        let found = Self.violations(in: trace)
        #expect(found.map(\.rule) == [.onlyPartialsBecomeFinal])
        #expect(found.first?.line == 15)
    }

    @Test func r4CatchesAWriteThroughAFinalPath() {
        let trace = Self.edit(Self.goodTrace, [17: "100 05:00:00.000017 pwrite64(6</d/sub/a.bin>, \"\"..., 10, 0) = 10"])
        let found = Self.violations(in: trace)
        #expect(found.map(\.rule) == [.onlyPartialsBecomeFinal])
        #expect(found.first?.line == 17)
    }

    @Test func resumeRuleCatchesARecordWrittenInPlace() {
        let trace = Self.edit(Self.goodTrace, [
            6: "101 05:00:00.000006 openat(5</d/.assetsync/partial>, \"a.resume\", O_WRONLY|O_CREAT|O_TRUNC|O_CLOEXEC, 0600) = 7</d/.assetsync/partial/a.resume>",
            7: "101 05:00:00.000007 write(7</d/.assetsync/partial/a.resume>, \"\"..., 139) = 139",
            8: nil,
        ])
        let found = Self.violations(in: trace)
        #expect(found.map(\.rule) == [.resumeRecordReplaced])
        #expect(found.first?.line == 6)
    }

    @Test func aCallKilledBeforeItReturnedIsNoEvent() {
        let log = StraceLog("""
            7 05:00:00.000001 renameat(3</d/.assetsync/partial>, "a.part", 4</d>, "a.bin" <unfinished ...>
            7 05:00:00.000002 +++ killed by SIGKILL +++
            """)
        #expect(log.events.isEmpty)
    }
}
