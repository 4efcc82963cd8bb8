import Foundation
import Glibc
import Testing
import TestSupport

/// Issue 14: a changed file with a chunk list is assembled from the chunks its old version in DEST
/// shares, and only the rest is fetched, with `Range` requests guarded by `If-Range`; every way the
/// delta can go wrong (Range ignored, another version answered, a chunk list that lies) ends in a
/// full download, and an interrupted delta resumes without fetching again what it has.
@Suite struct DeltaPullTests {
    static let size = 16 << 20

    /// The old version and a new one: 200 KiB inserted at 3 MiB, 64 KiB overwritten at 11 MiB.
    static func versions() -> (old: Data, new: Data) {
        let old = PullNginxTests.random(size)
        var new = old
        new.replaceSubrange((11 << 20)..<((11 << 20) + (64 << 10)), with: PullNginxTests.random(64 << 10))
        new.insert(contentsOf: PullNginxTests.random(200 << 10), at: 3 << 20)
        return (old, new)
    }

    /// The chunk list `assetsync manifest --chunks` writes for `data`.
    static func chunks(of data: Data) throws -> String {
        let directory = try TemporaryDirectory()
        try data.write(to: directory.url.appendingPathComponent("f"))
        let made = try AssetSyncBinary.run(["manifest", directory.path, "--base", "http://127.0.0.1/", "--chunks", "--format", "json"])
        let manifest = try JSONSerialization.jsonObject(with: Data(made.stdout.utf8)) as! [String: Any]
        let files = manifest["files"] as! [[String: Any]]
        return try #require(files.first?["chunks"] as? String, "\(made.stderr)")
    }

    /// The `done` event of the run's JSON output.
    static func done(_ stdout: String) throws -> [String: Any] {
        try #require(try LocalReuseTests.events(stdout, "done").first)
    }

    @Test func nginxServesOnlyTheChangedChunks() throws {
        let (old, new) = Self.versions()
        let sandbox = try Sandbox(serving: ["pack.bin": old])
        defer { sandbox.checkInvariants() }
        let nginx = try NginxServer(root: sandbox.served)
        defer { nginx.stop() }
        _ = try sandbox.manifest(base: nginx.baseURL)
        let first = try sandbox.pull([])  // the old version, downloaded whole
        #expect(first.status == 0, "\(first.stderr)")
        nginx.clearAccessLog()

        try sandbox.writeServed("pack.bin", new)
        sandbox.add("pack.bin", new, url: nil, chunks: try Self.chunks(of: new))
        let second = try sandbox.pull(["--json"])
        #expect(second.status == 0, "\(second.stderr)")
        #expect(sandbox.finalContent("pack.bin") == new)
        #expect(sandbox.partialNames().isEmpty)
        let log = nginx.settledAccessLog()
        let fetched = log.map(\.bodyBytesSent).reduce(0, +)
        print("delta of \(new.count) bytes: \(log.count) requests, \(fetched) bytes fetched (not asserted beyond the bounds)")
        // Two changes touch a few chunks of about 1 MiB (at most 4 MiB each): far less than the file.
        #expect((1...4).contains(log.count), "\(log.map(\.range))")
        #expect(fetched >= 264 << 10 && fetched <= 8 << 20, "\(fetched)")
        #expect(log.allSatisfy { $0.status == 206 && $0.range != nil && $0.completed })
        // The first range names the version; the others ask for it.
        #expect(log.first?.ifRange == nil && log.dropFirst().allSatisfy { $0.ifRange != nil })
        let done = try Self.done(second.stdout)
        #expect(done["bytes_transferred"] as? Int == fetched)
        #expect(done["reused_bytes"] as? Int == new.count - fetched)
        #expect(done["action"] as? String == "updated")
        let summary = try #require(try LocalReuseTests.events(second.stdout, "summary").first)
        #expect(summary["bytes_reused"] as? Int == new.count - fetched)
        // The next run finds the file current from its state record alone.
        let third = try sandbox.pull([])
        #expect(third.stderr.hasPrefix("0 new, 0 updated, 1 current, 0 failed; 0 B transferred in "), "\(third.stderr)")
    }
}
