import Foundation
import Glibc
import Testing
import TestSupport

/// `pull --atomic` against nginx: DEST as a symlink to a complete generation,
/// unchanged files hard-linked (cloned on a file system with reflinks), nothing published by a failed pull, `--keep`, `rollback`, `--delete`,
/// `plan` and `verify` in this mode, and the switch from a plain DEST and back.
@Suite struct AtomicPullTests {
    static func inode(_ path: String) -> ino_t? {
        var status = stat()
        return lstat(path, &status) == 0 ? status.st_ino : nil
    }

    static func generations(_ versions: TwoVersions) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: versions.sandbox.dest + ".assetsync")) ?? [])
            .filter { $0.hasPrefix("gen-") }.sorted()
    }

    @Test func publishesGenerationsKeepsTwoAndRollsBack() throws {
        let versions = try TwoVersions(count: 6, size: 3000, unchanged: 2)
        defer { versions.nginx.stop() }
        let dest = versions.sandbox.dest
        func pull(_ version: Int, _ options: [String] = []) throws -> RunResult {
            try AssetSyncBinary.run(["pull", versions.manifests[version], "--dest", dest] + options)
        }
        let first = try pull(0, ["--atomic"])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(versions.link() == "dest.assetsync/gen-000001")
        #expect(try versions.sandbox.cached() == versions.contents[0])
        // The mode is remembered: a pull without --atomic builds and publishes the next generation.
        let second = try pull(1)
        #expect(second.status == 0, "\(second.stderr)")
        #expect(versions.link() == "dest.assetsync/gen-000002")
        #expect(try versions.sandbox.cached() == versions.contents[1])
        #expect(try versions.sandbox.cached(in: dest + ".assetsync/gen-000001") == versions.contents[0])
        let unchanged = "set/f000.bin"
        #expect(Self.inode(dest + ".assetsync/gen-000001/" + unchanged) == Self.inode(dest + ".assetsync/gen-000002/" + unchanged))
        #expect(Self.inode(dest + ".assetsync/gen-000001/set/f002.bin") != Self.inode(dest + ".assetsync/gen-000002/set/f002.bin"))
        // Only what changed was downloaded: the two unchanged files never.
        #expect(!versions.nginx.settledAccessLog().contains { $0.path.hasPrefix("/v2/set/f000") })
        // A no-op pull is current from the state index (linked with the files) and reads nothing. It
        // recycles gen-000001 (beyond --keep 2) into gen-000003: the same tree as gen-000002, no more.
        try Data("stray".utf8).write(to: URL(fileURLWithPath: dest + ".assetsync/gen-000001/set/stray.bin"))
        let noop = try pull(1, ["--json"])
        #expect(noop.status == 0)
        #expect(noop.stdout.contains("\"current\":6"), "\(noop.stdout)")
        #expect(Self.generations(versions) == ["gen-000002", "gen-000003"])  // --keep 2 by default
        #expect(try versions.sandbox.cached() == versions.contents[1])
        for path in versions.contents[1].keys {
            #expect(Self.inode(dest + ".assetsync/gen-000002/" + path) == Self.inode(dest + ".assetsync/gen-000003/" + path), "\(path)")
        }
        #expect(try pull(0).status == 0)
        #expect(Self.generations(versions) == ["gen-000003", "gen-000004"])
        #expect(try AssetSyncBinary.run(["verify", versions.manifests[0], "--dest", dest]).status == 0)

        let back = try AssetSyncBinary.run(["rollback", "--dest", dest])
        #expect(back.status == 0, "\(back.stderr)")
        #expect(versions.link() == "dest.assetsync/gen-000003")
        #expect(try versions.sandbox.cached() == versions.contents[1])
        #expect(try AssetSyncBinary.run(["verify", versions.manifests[1], "--dest", dest]).status == 0)
        let plan = try AssetSyncBinary.run(["plan", versions.manifests[1], "--dest", dest])
        #expect(plan.stdout.contains("6 current"), "\(plan.stdout)")
        let none = try AssetSyncBinary.run(["rollback", "--dest", dest])
        #expect(none.status == 2)
        #expect(none.stderr.contains("has no generation before the current one"))
        #expect(versions.link() == "dest.assetsync/gen-000003")
    }

    /// Going back to a set costs no download: the files the previous generation held come from it,
    /// whether it was recycled into the new one (`--keep 2`: its changed files set aside in `spare/`)
    /// or is still kept whole (`--keep 3`). Each copy is proven, then committed as any download.
    @Test(arguments: [2, 3]) func goingBackToTheSetBeforeReusesThePreviousGeneration(keep: Int) throws {
        let versions = try TwoVersions(count: 6, size: 3000, unchanged: 2)
        defer { versions.nginx.stop() }
        let dest = versions.sandbox.dest
        func pull(_ version: Int) throws -> RunResult {
            try AssetSyncBinary.run(["pull", versions.manifests[version], "--dest", dest, "--atomic", "--keep", "\(keep)", "--json"])
        }
        #expect(try pull(0).status == 0)
        #expect(try pull(1).status == 0)
        // A file gone from DEST is new to the plan, which finds its bytes in gen-000001 (the pull may
        // take them from spare/ once it has recycled that generation).
        try FileManager.default.removeItem(atPath: dest + "/set/f002.bin")
        let plan = try AssetSyncBinary.run(["plan", versions.manifests[0], "--dest", dest, "--json"])
        #expect(plan.stdout.contains(
            #"{"type":"plan","action":"new","path":"set/f002.bin","size":3000,"reusable_from":"\#(dest).assetsync/gen-000001/set/f002.bin"}"#),
            "\(plan.stdout)")
        #expect(plan.stdout.contains("\"bytes_reusable\":3000"), "\(plan.stdout)")
        versions.nginx.clearAccessLog()
        let back = try pull(0)
        #expect(back.status == 0, "\(back.stderr)")
        #expect(versions.link() == "dest.assetsync/gen-000003")
        #expect(try versions.sandbox.cached() == versions.contents[0])
        #expect(try AssetSyncBinary.run(["verify", versions.manifests[0], "--dest", dest]).status == 0)
        #expect(versions.nginx.settledAccessLog().isEmpty, "no request: every changed file was on the machine")
        let source = keep == 2 ? "dest.assetsync/spare/" : "dest.assetsync/gen-000001/"
        #expect(back.stdout.components(separatedBy: "\"reused_from\":\"" + versions.sandbox.root.path).count - 1 == 4, "\(back.stdout)")
        #expect(back.stdout.contains(source), "\(back.stdout)")
        #expect(back.stdout.contains("\"bytes_reused\":12000"), "\(back.stdout)")
        // Published, the new generation needs nothing of what was set aside.
        #expect(!FileManager.default.fileExists(atPath: dest + ".assetsync/spare"))
    }

    /// On a file system with reflinks (an XFS image), generations are clones: an unchanged file takes
    /// no new data blocks, yet has its own inode, so a consumer that edits it in place through DEST
    /// changes no other generation. The next pulls put the edited file right again from another
    /// generation, with no request, and no-op pulls read nothing.
    @Test(.enabled(if: ReflinkDisk.canMount, Comment(rawValue: ReflinkDisk.requirement)))
    func onXFSGenerationsAreClonesAndAnEditInPlaceStaysInOne() throws {
        let disk = try ReflinkDisk(megabytes: 400)
        let size = 8 << 20
        let versions = try TwoVersions(count: 4, size: size, unchanged: 2)
        defer { versions.nginx.stop() }
        let dest = disk.path + "/dest"
        let store = dest + ".assetsync"
        func pull(_ version: Int, _ options: [String] = []) throws -> RunResult {
            let result = try AssetSyncBinary.run(["pull", versions.manifests[version], "--dest", dest, "--json"] + options)
            #expect(result.status == 0, "\(result.stderr)")
            return result
        }
        _ = try pull(0, ["--atomic"])
        sync()
        let freeBefore = disk.freeBytes()
        _ = try pull(1)
        sync()
        // Two changed files were written (16 MiB); the two unchanged ones were cloned, not copied.
        let used = freeBefore - disk.freeBytes()
        #expect(used < Int64(2 * size + (4 << 20)), "\(used) bytes used by a generation that changed 2 files of \(size) bytes")
        #expect(try String(contentsOfFile: store + "/.assetsync/generations", encoding: .utf8).contains("clones yes"))
        let unchanged = "set/f000.bin"
        #expect(Self.inode(store + "/gen-000001/" + unchanged) != Self.inode(store + "/gen-000002/" + unchanged))
        #expect(try versions.sandbox.cached(in: dest) == versions.contents[1])
        #expect(try versions.sandbox.cached(in: store + "/gen-000001") == versions.contents[0])

        // An edit in place through DEST stays in the published generation.
        let edit = try FileHandle(forWritingTo: URL(fileURLWithPath: dest + "/" + unchanged))
        try edit.write(contentsOf: Data("edited".utf8))
        try edit.close()
        #expect(FileManager.default.contents(atPath: store + "/gen-000001/" + unchanged) == versions.contents[0][unchanged])

        // gen-000003 recycles gen-000001, whose copy of the edited file is intact; gen-000004 recycles
        // gen-000002, whose copy is the edited one: it is found changed and cloned back from gen-000003.
        versions.nginx.clearAccessLog()
        let third = try pull(1)
        #expect(third.stdout.contains("\"current\":4"), "\(third.stdout)")
        #expect(try versions.sandbox.cached(in: dest) == versions.contents[1])
        let fourth = try pull(1)
        #expect(fourth.stdout.contains("\"reused_from\":\"\(store)/gen-000003/\(unchanged)\""), "\(fourth.stdout)")
        #expect(try versions.sandbox.cached(in: dest) == versions.contents[1])
        #expect(versions.nginx.settledAccessLog().isEmpty, "every file was on the machine")
        #expect(try AssetSyncBinary.run(["verify", versions.manifests[1], "--dest", dest]).status == 0)
        #expect(try AssetSyncBinary.run(["rollback", "--dest", dest]).status == 0)
        #expect(try versions.sandbox.cached(in: dest) == versions.contents[1])
    }

    @Test func aFailedPullPublishesNothingAndTheNextResumesIt() throws {
        let versions = try TwoVersions(count: 4, size: 3000)
        defer { versions.nginx.stop() }
        let dest = versions.sandbox.dest
        #expect(try AssetSyncBinary.run(["pull", versions.manifests[0], "--dest", dest, "--atomic"]).status == 0)
        let missing = versions.sandbox.served.path + "/v2/set/f002.bin"
        let saved = try Data(contentsOf: URL(fileURLWithPath: missing))
        try FileManager.default.removeItem(atPath: missing)
        let failed = try AssetSyncBinary.run(["pull", versions.manifests[1], "--dest", dest, "--retries", "0"])
        #expect(failed.status == 1, "\(failed.stderr)")
        #expect(versions.link() == "dest.assetsync/gen-000001")
        #expect(try versions.sandbox.cached() == versions.contents[0])
        #expect(FileManager.default.fileExists(atPath: dest + ".assetsync/next/set/deep/f001.bin"))
        try saved.write(to: URL(fileURLWithPath: missing))
        versions.nginx.clearAccessLog()
        let resumed = try AssetSyncBinary.run(["pull", versions.manifests[1], "--dest", dest])
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(versions.link() == "dest.assetsync/gen-000002")
        #expect(try versions.sandbox.cached() == versions.contents[1])
        // The files the failed pull committed into the next generation were not fetched again.
        #expect(versions.nginx.settledAccessLog().map(\.path) == ["/v2/set/f002.bin"])
    }

    @Test func deleteRemovesExtrasFromTheNewGenerationOnly() throws {
        let versions = try TwoVersions(count: 2, size: 100)
        defer { versions.nginx.stop() }
        let dest = versions.sandbox.dest
        #expect(try AssetSyncBinary.run(["pull", versions.manifests[0], "--dest", dest, "--atomic"]).status == 0)
        try Data("extra".utf8).write(to: URL(fileURLWithPath: dest + "/extra.txt"))
        let result = try AssetSyncBinary.run(["pull", versions.manifests[0], "--dest", dest, "--delete"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("deleted  extra.txt"))
        #expect(!FileManager.default.fileExists(atPath: dest + "/extra.txt"))
        #expect(FileManager.default.fileExists(atPath: dest + ".assetsync/gen-000001/extra.txt"))
    }

    @Test func switchingAPlainDestToAtomicAndBackKeepsEveryFile() throws {
        let versions = try TwoVersions(count: 4, size: 1000)
        defer { versions.nginx.stop() }
        let dest = versions.sandbox.dest
        #expect(try AssetSyncBinary.run(["pull", versions.manifests[0], "--dest", dest]).status == 0)
        try FileManager.default.createDirectory(atPath: dest + "/mine", withIntermediateDirectories: true)
        try Data("mine".utf8).write(to: URL(fileURLWithPath: dest + "/mine/notes.txt"))
        try FileManager.default.createSymbolicLink(atPath: dest + "/mine/link", withDestinationPath: "/etc/hostname")
        var expected = versions.contents[0]
        expected["mine/notes.txt"] = Data("mine".utf8)
        let before = versions.sandbox.finalFiles()
        let atomic = try AssetSyncBinary.run(["pull", versions.manifests[0], "--dest", dest, "--atomic", "--json"])
        #expect(atomic.status == 0, "\(atomic.stderr)")
        #expect(atomic.stdout.contains("\"current\":4"), "\(atomic.stdout)")  // proven by the state index, not re-read
        #expect(versions.link() == "dest.assetsync/gen-000001")
        let after = versions.sandbox.finalFiles()
        #expect(after.files == expected && after.others == before.others)
        let plain = try AssetSyncBinary.run(["pull", versions.manifests[1], "--dest", dest, "--no-atomic"])
        #expect(plain.status == 0, "\(plain.stderr)")
        #expect(versions.link() == nil)
        expected.merge(versions.contents[1]) { _, new in new }
        let last = versions.sandbox.finalFiles()
        #expect(last.files == expected && last.others == ["mine/link"])
        #expect(Self.generations(versions).isEmpty)
        // Plain again, and remembered so: the next pull leaves DEST a directory.
        #expect(try AssetSyncBinary.run(["pull", versions.manifests[1], "--dest", dest]).status == 0)
        #expect(versions.link() == nil)
    }

    /// The pull that makes a plain DEST atomic resumes its interrupted downloads: their partials move
    /// into the first generation, and the file is fetched from where it stopped.
    @Test func makingAPlainDestAtomicResumesItsPartialDownloads() throws {
        let sandbox = try Sandbox(serving: ["big/video.bin": PullNginxTests.random(12 << 20)])
        let nginx = try NginxServer(root: sandbox.served, extraConfig: NginxServer.slowLocation(serving: sandbox.served))
        defer { nginx.stop() }
        let manifest = try sandbox.manifest(base: nginx.baseURL + "slow/")
        let killed = try AssetSyncBinary.start(["pull", manifest, "--dest", sandbox.dest])
        let started = killed.waitForPartial(in: sandbox.dest, bytes: 2 << 20)
        killed.signal(SIGKILL)
        _ = try killed.wait()
        try #require(started, "the plain pull never got 2 MiB into its partial")
        // A plain pull still running holds DEST's lock: making DEST atomic waits for it (here, not at all).
        let running = try AssetSyncBinary.start(["pull", manifest, "--dest", sandbox.dest])
        let plainStarted = running.waitForPartial(in: sandbox.dest, bytes: 3 << 20)
        let refused = try AssetSyncBinary.run(["pull", manifest, "--dest", sandbox.dest, "--atomic"])
        running.signal(SIGKILL)
        _ = try running.wait()
        try #require(plainStarted, "the second plain pull never got 3 MiB into its partial")
        #expect(refused.status == 4, "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: sandbox.dest + ".assetsync/.assetsync/generations"),
            "the mode is recorded only once DEST's lock is held")
        let atomic = try AssetSyncBinary.run(["pull", manifest, "--dest", sandbox.dest, "--atomic"])
        #expect(atomic.status == 0, "\(atomic.stderr)")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: sandbox.dest) == "dest.assetsync/gen-000001")
        #expect(try sandbox.cached() == sandbox.expected)
        let log = nginx.waitForAccessLog(count: 3)
        #expect(log.count == 3)
        #expect(log.last?.status == 206 && log.last?.range.map { $0.hasPrefix("bytes=") && $0 != "bytes=0-" } == true, "\(log)")
    }

    @Test func aBadManifestMakesNoGenerationStore() throws {
        let sandbox = try Sandbox()
        let manifest = sandbox.root.path + "/bad.json"
        try Data("{\"version\": 2, \"files\": []}".utf8).write(to: URL(fileURLWithPath: manifest))
        let result = try AssetSyncBinary.run(["pull", manifest, "--dest", sandbox.dest, "--atomic"])
        #expect(result.status == 2, "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: sandbox.dest + ".assetsync"))
        #expect(!FileManager.default.fileExists(atPath: sandbox.dest))
    }

    @Test func keepGoesWithAtomicAndAtomicNeedsANamedDest() throws {
        let sandbox = try Sandbox()
        let manifest = try sandbox.writeManifest([], name: "empty.json")
        let keep = try AssetSyncBinary.run(["pull", manifest, "--dest", sandbox.dest, "--keep", "3"])
        #expect(keep.status == 2)
        #expect(keep.stderr.hasPrefix("Error: '--keep' goes with '--atomic'\n"))
        let both = try AssetSyncBinary.run(["pull", manifest, "--dest", sandbox.dest, "--atomic", "--no-atomic"])
        #expect(both.status == 2)
        let dot = try AssetSyncBinary.run(["pull", manifest, "--atomic"], directory: sandbox.root.url)
        #expect(dot.status == 2, "\(dot.stderr)")
        #expect(dot.stderr.contains("DEST named by its own name"))
        let rollback = try AssetSyncBinary.run(["rollback", "--dest", sandbox.dest])
        #expect(rollback.status == 2)
        #expect(rollback.stderr.contains("is not an atomic cache directory"))
    }
}
