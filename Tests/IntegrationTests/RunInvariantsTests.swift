import Foundation
import Testing
import TestSupport

/// The torture checker (`RunInvariants`) catches a broken case of each invariant, and passes a sound one.
@Suite struct RunInvariantsTests {
    /// DEST with one old file at a manifest path and one unrelated file, a sentinel tree beside it,
    /// and the checker taken over them.
    struct Case {
        let root: TemporaryDirectory
        let manifest: [TestManifest.File]
        let right = Data("the manifest's bytes".utf8)
        let invariants: RunInvariants
        var dest: String { root.path + "/dest" }
        var sentinel: String { root.path + "/sentinel" }

        init() throws {
            root = try TemporaryDirectory()
            manifest = [
                TestManifest.File(path: "a.bin", size: right.count, crc32: TestManifest.crc32Hex(right), url: nil),
                TestManifest.File(path: "dir/b.bin", size: right.count, crc32: TestManifest.crc32Hex(right), url: nil),
            ]
            for directory in ["/dest/.assetsync/partial", "/sentinel/inner"] {
                try FileManager.default.createDirectory(atPath: root.path + directory, withIntermediateDirectories: true)
            }
            try Data("old".utf8).write(to: URL(fileURLWithPath: root.path + "/dest/a.bin"))
            try Data("mine".utf8).write(to: URL(fileURLWithPath: root.path + "/dest/notes.txt"))
            try Data("keep".utf8).write(to: URL(fileURLWithPath: root.path + "/sentinel/inner/s.txt"))
            invariants = RunInvariants(dest: root.path + "/dest", sentinel: root.path + "/sentinel", entries: manifest)
        }

        func write(_ relative: String, _ data: Data) throws {
            let url = URL(fileURLWithPath: dest + "/" + relative)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try data.write(to: url)
        }
    }

    static let failed = RunResult(status: 1, stdout: "", stderr: "failed   dir/b.bin: Input/output error (http://x/dir/b.bin)\n")
    static let healthyVerify = RunResult(
        status: 0, stdout: "", stderr: "Verified 2 files: 2 good, 0 missing, 0 corrupt; read 40 B in 0.0 s (1 MiB/s).\n")

    @Test func soundCasePasses() throws {
        let sound = try Case()
        try sound.write("dir/b.bin", sound.right)
        try sound.write(".assetsync/partial/a.bin.part", Data("ol".utf8))
        #expect(sound.invariants.check(Self.failed, outcome: .exits(RunInvariants.documentedStatuses)).isEmpty)
        try sound.write("a.bin", sound.right)
        #expect(sound.invariants.checkRerun(pull: RunResult(status: 0, stdout: "", stderr: ""), verify: Self.healthyVerify).isEmpty)
    }

    @Test func i1WrongBytesAtAFinalPath() throws {
        let broken = try Case()
        try broken.write("a.bin", Data("half of the manifest's".utf8))
        let violations = broken.invariants.check(Self.failed, outcome: .exits(RunInvariants.documentedStatuses))
        #expect(violations.count == 1 && violations[0].hasPrefix("I1: 'a.bin'"), "\(violations)")
    }

    @Test func i2SentinelChanged() throws {
        let broken = try Case()
        try Data("changed".utf8).write(to: URL(fileURLWithPath: broken.sentinel + "/inner/s.txt"))
        let violations = broken.invariants.check(Self.failed, outcome: .exits(RunInvariants.documentedStatuses))
        #expect(violations.count == 1 && violations[0].hasPrefix("I2:"), "\(violations)")
    }

    @Test func i3StrayFileAndMisplacedTemporary() throws {
        let broken = try Case()
        try broken.write("dir/b.bin.tmp-123", Data("x".utf8))
        try broken.write(".assetsync/state.tmp-9", Data("x".utf8))
        let violations = broken.invariants.check(Self.failed, outcome: .exits(RunInvariants.documentedStatuses))
        #expect(violations.count == 2 && violations.allSatisfy { $0.hasPrefix("I3:") }, "\(violations)")
    }

    @Test func i4UndocumentedStatusOrSilentFailure() throws {
        let broken = try Case()
        let all = RunInvariants.Outcome.exits(RunInvariants.documentedStatuses)
        let trapped = broken.invariants.check(RunResult(status: 132, stdout: "", stderr: "Fatal error"), outcome: all)
        #expect(trapped.count == 1 && trapped[0].hasPrefix("I4: exit status 132"), "\(trapped)")
        let invalid = broken.invariants.check(RunResult(status: 2, stdout: "", stderr: "Error: m.json: not a manifest\n"), outcome: all)
        #expect(invalid.count == 1 && invalid[0].hasPrefix("I4: exit status 2"), "\(invalid)")
        let unreadable = RunResult(status: 2, stdout: "", stderr: "Error: m.json: cannot open the manifest: Permission denied\n")
        #expect(broken.invariants.check(unreadable, outcome: all).isEmpty)
        let summary = RunResult(status: 3, stdout: "", stderr: "1 deleted.\nFailed:\n  old/x.bin: cannot delete: Permission denied\n")
        #expect(broken.invariants.check(summary, outcome: all).isEmpty)
        let silent = broken.invariants.check(RunResult(status: 3, stdout: "", stderr: "3 files\n"), outcome: all)
        #expect(silent.count == 1 && silent[0].hasPrefix("I4:"), "\(silent)")
        let started = broken.invariants.check(RunResult(status: 1, stdout: "", stderr: "failed   a.bin: x\n"), outcome: .notStarted)
        #expect(started.count == 1 && started[0].hasPrefix("I4: expected the loader to fail"), "\(started)")
        let survived = broken.invariants.check(RunResult(status: 0, stdout: "", stderr: ""), outcome: .killed(9))
        #expect(survived.count == 1 && survived[0].hasPrefix("I4: expected to be killed"), "\(survived)")
        // A crash by SIGILL reports status 4, which would pass for "another run holds the lock".
        let crashed = broken.invariants.check(RunResult(status: 4, stdout: "", stderr: "", signal: SIGILL), outcome: all)
        #expect(crashed.count == 1 && crashed[0].hasPrefix("I4: was killed by signal 4, not an exit"), "\(crashed)")
        let quiet = broken.invariants.check(RunResult(status: 130, stdout: "", stderr: "Error: stopped\n"), outcome: .interrupted)
        #expect(quiet.count == 1 && quiet[0].hasPrefix("I4: expected exit 130 with the 'Interrupted:' line"), "\(quiet)")
        let stopped = RunResult(status: 130, stdout: "", stderr: "Interrupted: partial downloads are kept in .assetsync/partial/\n")
        #expect(broken.invariants.check(stopped, outcome: .interrupted).isEmpty)
    }

    @Test func i5RerunOrVerifyNotHealthy() throws {
        let broken = try Case()
        try broken.write("dir/b.bin", broken.right)
        try broken.write(".assetsync/meta.tmp-1", Data("x".utf8))
        // a.bin still holds its old bytes: the rerun failed and verify found it corrupt.
        let violations = broken.invariants.checkRerun(
            pull: RunResult(status: 1, stdout: "", stderr: "failed   a.bin: reset\n"),
            verify: RunResult(status: 1, stdout: "", stderr: "Verified 2 files: 1 good, 0 missing, 1 corrupt; read 40 B.\n"))
        #expect(violations.count == 4 && violations.allSatisfy { $0.hasPrefix("I5:") }, "\(violations)")
    }

    /// A log line of `NginxServer`'s format for a GET of `path` with `range`, sending `body` bytes.
    static func logLine(_ path: String, range: String?, body: Int) throws -> RunInvariants.Request {
        let line = """
            {"request":"GET \(path) HTTP/1.1","method":"GET","uri":"\(path)","status":\(range == nil ? 200 : 206),"bytes_sent":\(body + 200),\
            "body_bytes_sent":\(body),"range":"\(range ?? "")","if_range":"","if_none_match":"","if_modified_since":"","authorization":"",\
            "user_agent":"","host":"","content_range":"","completion":"OK","connection":1,"connection_requests":1,"request_time":0.0,\
            "remote_port":"1","time":""}
            """
        return RunInvariants.Request(try #require(AccessLogLine(json: line)))
    }

    /// DEST before the rerun: `a.bin` complete at its final path, `dir/b.bin` with a partial whose record
    /// vouches for its first 8 bytes.
    static func partlyHeld() throws -> Case {
        let held = try Case()
        try held.write("a.bin", held.right)
        try held.write(".assetsync/partial/0123.part", held.right.prefix(8))
        try held.write(".assetsync/partial/0123.resume", Data("""
            assetsync-resume 1
            path dir/b.bin
            size \(held.right.count)
            crc32 \(TestManifest.crc32Hex(held.right))
            url http://x/dir/b.bin
            etag "5f-1"

            """.utf8))
        return held
    }

    @Test func i5RequestsForOnlyWhatWasMissingPass() throws {
        let held = try Self.partlyHeld()
        let holdings = held.invariants.holdings()
        #expect(holdings["a.bin"]?.complete == true && holdings["dir/b.bin"]?.written == [0..<8], "\(holdings)")
        let resumed = [try Self.logLine("/dir/b.bin", range: "bytes=8-", body: 12)]
        #expect(held.invariants.checkRequests(resumed, holdings: holdings).isEmpty)
        // Without a usable validator (a weak ETag only) the record vouches for nothing: a fetch from zero is right.
        try held.write(".assetsync/partial/0123.resume", Data(
            "assetsync-resume 1\npath dir/b.bin\nsize 20\ncrc32 \(TestManifest.crc32Hex(held.right))\nurl u\netag W/\"1\"\n".utf8))
        let weak = held.invariants.holdings()
        #expect(weak["dir/b.bin"]?.written == [], "\(weak)")
        #expect(held.invariants.checkRequests([try Self.logLine("/dir/b.bin", range: nil, body: 20)], holdings: weak).isEmpty)
    }

    @Test func i5RequestCheckCatchesFetchingWhatWasHeld() throws {
        let held = try Self.partlyHeld()
        let holdings = held.invariants.holdings()
        let complete = held.invariants.checkRequests([try Self.logLine("/a.bin", range: nil, body: 20)], holdings: holdings)
        #expect(complete.count == 2 && complete[0].contains("already held") && complete[1].contains("more than the 12 missing"), "\(complete)")
        let fromZero = held.invariants.checkRequests([try Self.logLine("/dir/b.bin", range: nil, body: 20)], holdings: holdings)
        #expect(fromZero.count == 2 && fromZero[0].contains("bytes 0..<8 of 'dir/b.bin' again"), "\(fromZero)")
        let early = held.invariants.checkRequests([try Self.logLine("/dir/b.bin", range: "bytes=6-", body: 14)], holdings: holdings)
        #expect(early.count == 2 && early[0].contains("bytes 6..<8"), "\(early)")
        let foreign = held.invariants.checkRequests([try Self.logLine("/other%20name.bin", range: nil, body: 0)], holdings: holdings)
        #expect(foreign.count == 1 && foreign[0].contains("'other name.bin', which the manifest does not name"), "\(foreign)")
        // Twice the missing bytes, each request from the right offset.
        let twice = [try Self.logLine("/dir/b.bin", range: "bytes=8-", body: 12), try Self.logLine("/dir/b.bin", range: "bytes=8-", body: 12)]
        let repeated = held.invariants.checkRequests(twice, holdings: holdings)
        #expect(repeated == ["I5: the rerun fetched 24 body bytes, more than the 12 missing"], "\(repeated)")
    }

    /// A record vouching for bytes a corrupting server sent: the binary learns it only from the whole
    /// file's CRC, so the missing bytes and then one whole download are what it may fetch; no more.
    @Test func i5RequestCheckAllowsOneFreshDownloadOfACorruptPartial() throws {
        let held = try Self.partlyHeld()
        let truth = { (path: String, range: Range<Int>) -> Data? in path == "dir/b.bin" ? held.right.subdata(in: range) : nil }
        #expect(held.invariants.holdings(trueBytes: truth)["dir/b.bin"]?.corrupt == false)
        var flipped = held.right.prefix(8)
        flipped[3] ^= 0xFF
        try held.write(".assetsync/partial/0123.part", flipped)
        let holdings = held.invariants.holdings(trueBytes: truth)
        #expect(holdings["dir/b.bin"]?.corrupt == true, "\(holdings)")
        let resumedThenFresh = [try Self.logLine("/dir/b.bin", range: "bytes=8-", body: 12), try Self.logLine("/dir/b.bin", range: nil, body: 20)]
        #expect(held.invariants.checkRequests(resumedThenFresh, holdings: holdings).isEmpty)
        let twiceFresh = resumedThenFresh + [try Self.logLine("/dir/b.bin", range: nil, body: 20)]
        #expect(held.invariants.checkRequests(twiceFresh, holdings: holdings) == ["I5: the rerun fetched 52 body bytes, more than the 32 missing"])
        // Without the true bytes the same log is a violation: nothing tells a corrupt partial from a sound one.
        #expect(!held.invariants.checkRequests(resumedThenFresh, holdings: held.invariants.holdings()).isEmpty)
    }

    @Test func i5RequestCheckReadsSegmentedRecords() throws {
        let held = try Self.partlyHeld()
        try held.write(".assetsync/partial/0123.part", held.right)  // preallocated to the whole size
        try held.write(".assetsync/partial/0123.resume", Data(
            "assetsync-resume 1\npath dir/b.bin\nsize 20\ncrc32 \(TestManifest.crc32Hex(held.right))\nurl u\nlast-modified Tue\nsegments 0-10+4,10-20+3\n".utf8))
        let holdings = held.invariants.holdings()
        #expect(holdings["dir/b.bin"]?.written == [0..<4, 10..<13], "\(holdings)")
        let sound = [try Self.logLine("/dir/b.bin", range: "bytes=4-9", body: 6), try Self.logLine("/dir/b.bin", range: "bytes=13-19", body: 7)]
        #expect(held.invariants.checkRequests(sound, holdings: holdings).isEmpty)
        let overlapping = [try Self.logLine("/dir/b.bin", range: "bytes=4-9", body: 6), try Self.logLine("/dir/b.bin", range: "bytes=10-19", body: 10)]
        let violations = held.invariants.checkRequests(overlapping, holdings: holdings)
        #expect(violations.count == 2 && violations[0].contains("bytes 10..<13") && violations[1].contains("16 body bytes, more than the 13"),
                "\(violations)")
    }
}
