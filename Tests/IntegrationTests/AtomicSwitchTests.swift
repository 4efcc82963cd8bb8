import Foundation
import Glibc
import Testing
import TestSupport

/// Making a DEST atomic, numbering its generations and rolling it back when a user, a kill or a
/// planted name gets in the way: nothing the user put in DEST is lost, a failed switch records
/// nothing, no leftover stops a later run, a planted store or generation is refused or ignored, and
/// `rollback` publishes only a generation that is as its pull left it.
@Suite struct AtomicSwitchTests {
    static func read(_ path: String) -> String? {
        (try? Data(contentsOf: URL(fileURLWithPath: path))).map { String(decoding: $0, as: UTF8.self) }
    }

    static func write(_ text: String, to path: String) throws {
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    }

    static func exists(_ path: String) -> Bool {
        var status = stat()
        return lstat(path, &status) == 0
    }

    static func storeNames(_ dest: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: dest + ".assetsync")) ?? []).sorted()
    }

    @Test("a file written into a plain DEST while its first atomic pull runs is carried into the generation")
    func aFileWrittenDuringTheSwitchIsKept() throws {
        let sandbox = try Sandbox(serving: ["big.bin": PullNginxTests.random(12 << 20), "small.bin": PullNginxTests.random(1000)])
        let nginx = try NginxServer(root: sandbox.served, extraConfig: NginxServer.slowLocation(serving: sandbox.served))
        defer { nginx.stop() }
        let dest = sandbox.dest
        let manifest = try sandbox.manifest(base: nginx.baseURL + "slow/")
        try Self.write("mine before", to: dest + "/before.txt")
        try Self.write("an extra, first version", to: dest + "/extra.txt")
        try Self.write("the manifest's name, mine", to: dest + "/small.bin")
        let running = try AssetSyncBinary.start(["pull", manifest, "--dest", dest, "--atomic"])
        try #require(waitUntil(timeout: 30) { Self.exists(dest + ".assetsync/next/.assetsync") }, "the pull built no next/")
        // While the pull downloads into next/, the user works in DEST, still a plain directory.
        try Self.write("mine during", to: dest + "/during.txt")
        try Self.write("mine during, deeper", to: dest + "/new/dir/deep.txt")
        try Self.write("an extra, second version", to: dest + "/extra.tmp")
        try #require(rename(dest + "/extra.tmp", dest + "/extra.txt") == 0)
        try #require(!Self.exists(dest + ".assetsync/gen-000001"), "the pull published before DEST was written: the test proves nothing")
        let result = try running.wait()
        #expect(result.status == 0, "\(result.stderr)")
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: dest)) == "dest.assetsync/gen-000001")
        #expect(Self.read(dest + "/before.txt") == "mine before")
        #expect(Self.read(dest + "/during.txt") == "mine during")
        #expect(Self.read(dest + "/new/dir/deep.txt") == "mine during, deeper")
        #expect(Self.read(dest + "/extra.txt") == "an extra, second version")
        #expect(try sandbox.cached()["small.bin"] == sandbox.expected["small.bin"], "the manifest's file is the proven one")
        #expect(Self.storeNames(dest) == [".assetsync", "gen-000001"], "no leftover of the old tree")
        #expect(try AssetSyncBinary.run(["verify", manifest, "--dest", dest]).status == 0)
    }

    @Test("a kill at any fsync of the switch to atomic is finished by the next pull, and nothing of DEST is lost")
    func aKillDuringTheSwitchIsFinishedByTheNextPull() throws {
        try #require(TortureTests.hasStrace, "needs strace")
        let versions = try TwoVersions(count: 4, size: 3000)
        defer { versions.nginx.stop() }
        let dest = versions.sandbox.dest
        var reached = 0
        for k in 1...12 {
            try? FileManager.default.removeItem(atPath: dest)
            try? FileManager.default.removeItem(atPath: dest + ".assetsync")
            try #require(try AssetSyncBinary.run(["pull", versions.manifests[0], "--dest", dest]).status == 0)
            try Self.write("mine", to: dest + "/mine.txt")
            let killed = try AssetSyncBinary.run(
                ["pull", versions.manifests[1], "--dest", dest, "--atomic"], prefix: TortureTests.command("fsync", .kill, at: k))
            guard killed.signal == SIGKILL else {
                #expect(killed.status == 0, "fsync \(k): \(killed.stderr)")
                break
            }
            reached += 1
            let next = try AssetSyncBinary.run(["pull", versions.manifests[1], "--dest", dest, "--atomic"])
            #expect(next.status == 0, "killed at fsync \(k): \(next.stderr)")
            #expect(try versions.sandbox.cached().filter { $0.key != "mine.txt" } == versions.contents[1], "killed at fsync \(k)")
            #expect(Self.read(dest + "/mine.txt") == "mine", "killed at fsync \(k)")
            #expect(Self.storeNames(dest).allSatisfy { $0 == ".assetsync" || $0.hasPrefix("gen-") }, "killed at fsync \(k): \(Self.storeNames(dest))")
            #expect(try AssetSyncBinary.run(["pull", versions.manifests[1], "--dest", dest]).status == 0, "a plain pull after, killed at fsync \(k)")
        }
        #expect(reached >= 3, "the switch made fewer fsyncs than expected: the test proves little")
    }

    @Test("a switch to atomic whose pull fails records nothing: the next pull is plain")
    func aFailedSwitchRecordsNothing() throws {
        let versions = try TwoVersions(count: 2, size: 1000)
        defer { versions.nginx.stop() }
        let dest = versions.sandbox.dest
        #expect(try AssetSyncBinary.run(["pull", versions.manifests[0], "--dest", dest]).status == 0)
        let missing = TestManifest.File(path: "missing.bin", size: 10, crc32: "00000000", url: versions.nginx.baseURL + "nothing/here.bin")
        let failing = try versions.sandbox.writeManifest([missing], base: versions.nginx.baseURL, name: "failing.json")
        let failed = try AssetSyncBinary.run(["pull", failing, "--dest", dest, "--atomic", "--retries", "0"])
        #expect(failed.status == 1, "\(failed.stderr)")
        #expect(!Self.exists(dest + ".assetsync/.assetsync/generations"), "the failed switch recorded the atomic mode")
        let plain = try AssetSyncBinary.run(["pull", versions.manifests[1], "--dest", dest])
        #expect(plain.status == 0, "\(plain.stderr)")
        #expect(Sandbox.kind(dest) == S_IFDIR, "DEST became a symlink without --atomic")
        #expect(try versions.sandbox.cached() == versions.contents[1])
    }

    @Test("a DEST that links to another file system is not made atomic, and stays plain")
    func aDestOnAnotherFileSystemStaysPlain() throws {
        let versions = try TwoVersions(count: 2, size: 1000)
        defer { versions.nginx.stop() }
        let elsewhere = try TemporaryDirectory(in: "/dev/shm")
        var sandboxStatus = stat()
        var elsewhereStatus = stat()
        try #require(stat(versions.sandbox.root.path, &sandboxStatus) == 0 && stat(elsewhere.path, &elsewhereStatus) == 0)
        try #require(sandboxStatus.st_dev != elsewhereStatus.st_dev, "/dev/shm is on the sandbox's file system here")
        let dest = versions.sandbox.dest
        try FileManager.default.createSymbolicLink(atPath: dest, withDestinationPath: elsewhere.path)
        #expect(try AssetSyncBinary.run(["pull", versions.manifests[0], "--dest", dest]).status == 0)
        let atomic = try AssetSyncBinary.run(["pull", versions.manifests[1], "--dest", dest, "--atomic"])
        #expect(atomic.status == 3, "\(atomic.stderr)")
        #expect(!Self.exists(dest + ".assetsync/.assetsync/generations"), "the failed switch recorded the atomic mode")
        let plain = try AssetSyncBinary.run(["pull", versions.manifests[1], "--dest", dest])
        #expect(plain.status == 0, "\(plain.stderr)")
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: dest)) == elsewhere.path)
        #expect(try versions.sandbox.cached(in: elsewhere.path) == versions.contents[1])
    }

    @Test("a DEST.assetsync planted as a symlink is refused, and nothing is written where it points")
    func aPlantedStoreLinkIsRefused() throws {
        let versions = try TwoVersions(count: 2, size: 1000)
        defer { versions.nginx.stop() }
        let dest = versions.sandbox.dest
        let elsewhere = versions.sandbox.root.path + "/elsewhere"
        try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: dest + ".assetsync", withDestinationPath: elsewhere)
        let atomic = try AssetSyncBinary.run(["pull", versions.manifests[0], "--dest", dest, "--atomic"])
        #expect(atomic.status == 3, "\(atomic.stderr)")
        #expect(atomic.stderr.contains("dest.assetsync' is a symbolic link"), "\(atomic.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: elsewhere).isEmpty, "the store was made through the link")
        #expect(!Self.exists(dest))
        // A mode record behind a planted link makes no pull atomic either.
        try Self.write("keep 2\nclones no\n", to: elsewhere + "/.assetsync/generations")
        let plain = try AssetSyncBinary.run(["pull", versions.manifests[0], "--dest", dest])
        #expect(plain.status == 0, "\(plain.stderr)")
        #expect(Sandbox.kind(dest) == S_IFDIR)
        #expect(try FileManager.default.contentsOfDirectory(atPath: elsewhere) == [".assetsync"])
    }

    @Test("generation names are parsed strictly: a planted huge number is no generation, and a store at the highest number says so")
    func plantedGenerationNumbersNeverCrashAPull() throws {
        let versions = try TwoVersions(count: 2, size: 1000)
        defer { versions.nginx.stop() }
        let dest = versions.sandbox.dest
        #expect(try AssetSyncBinary.run(["pull", versions.manifests[0], "--dest", dest, "--atomic"]).status == 0)
        for planted in ["gen-9223372036854775807", "gen-99999999999999999999", "gen-0000001", "gen-+00001", "gen-٣٣٣٣٣٣"] {
            try FileManager.default.createDirectory(atPath: dest + ".assetsync/" + planted, withIntermediateDirectories: false)
        }
        let pull = try AssetSyncBinary.run(["pull", versions.manifests[1], "--dest", dest])
        #expect(pull.signal == nil && pull.status == 0, "\(pull.stderr)")
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: dest)) == "dest.assetsync/gen-000002")
        #expect(try versions.sandbox.cached() == versions.contents[1])
        try FileManager.default.createDirectory(atPath: dest + ".assetsync/gen-999999999", withIntermediateDirectories: false)
        let full = try AssetSyncBinary.run(["pull", versions.manifests[0], "--dest", dest])
        #expect(full.signal == nil && full.status == 3, "\(full.stderr)")
        #expect(full.stderr.contains("gen-999999999' holds the highest generation number"), "\(full.stderr)")
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: dest)) == "dest.assetsync/gen-000002")
        try FileManager.default.removeItem(atPath: dest + ".assetsync/gen-999999999")
        #expect(try AssetSyncBinary.run(["pull", versions.manifests[0], "--dest", dest]).status == 0, "the next pull resumes the build")
        #expect(try versions.sandbox.cached() == versions.contents[0])
    }

    @Test("rollback refuses a previous generation that was emptied or changed, and --verify finds bytes changed behind stat")
    func rollbackPublishesOnlyAWholeGeneration() throws {
        let versions = try TwoVersions(count: 4, size: 3000)
        defer { versions.nginx.stop() }
        let dest = versions.sandbox.dest
        for version in [0, 1, 0] {
            #expect(try AssetSyncBinary.run(["pull", versions.manifests[version], "--dest", dest, "--atomic", "--keep", "3"]).status == 0)
        }
        let store = dest + ".assetsync"
        func link() -> String? { try? FileManager.default.destinationOfSymbolicLink(atPath: dest) }
        #expect(link() == "dest.assetsync/gen-000003")
        // A file of gen-000002 rewritten in place, with its size and modification time put back.
        let changed = store + "/gen-000002/set/f000.bin"
        var status = stat()
        try #require(stat(changed, &status) == 0)
        let handle = try #require(FileHandle(forUpdatingAtPath: changed))
        try handle.write(contentsOf: Data(repeating: 0x55, count: 16))
        try handle.close()
        var times = [status.st_atim, status.st_mtim]
        try #require(utimensat(AT_FDCWD, changed, &times, 0) == 0)
        let verified = try AssetSyncBinary.run(["rollback", "--dest", dest, "--verify"])
        #expect(verified.status == 3, "\(verified.stderr)")
        #expect(verified.stderr.contains("'set/f000.bin' holds other bytes than were proven"), "\(verified.stderr)")
        #expect(link() == "dest.assetsync/gen-000003")
        // A file removed: found without reading anything.
        try FileManager.default.removeItem(atPath: store + "/gen-000002/set/deep/f001.bin")
        let missing = try AssetSyncBinary.run(["rollback", "--dest", dest])
        #expect(missing.status == 3, "\(missing.stderr)")
        #expect(missing.stderr.contains("'set/deep/f001.bin' is missing"), "\(missing.stderr)")
        #expect(link() == "dest.assetsync/gen-000003")
        // Emptied by hand, its state index included.
        for name in try FileManager.default.contentsOfDirectory(atPath: store + "/gen-000002") {
            try FileManager.default.removeItem(atPath: store + "/gen-000002/" + name)
        }
        let emptied = try AssetSyncBinary.run(["rollback", "--dest", dest])
        #expect(emptied.status == 3, "\(emptied.stderr)")
        #expect(emptied.stderr.contains("has no readable state index"), "\(emptied.stderr)")
        #expect(link() == "dest.assetsync/gen-000003")
        #expect(try versions.sandbox.cached() == versions.contents[0])
    }

    @Test("rollback publishes a previous generation that is as its pull left it, checked by stat and by reading")
    func rollbackPublishesAnIntactGeneration() throws {
        let versions = try TwoVersions(count: 4, size: 3000)
        defer { versions.nginx.stop() }
        let dest = versions.sandbox.dest
        for version in [0, 1] {
            #expect(try AssetSyncBinary.run(["pull", versions.manifests[version], "--dest", dest, "--atomic", "--keep", "3"]).status == 0)
        }
        let back = try AssetSyncBinary.run(["rollback", "--dest", dest, "--verify"])
        #expect(back.status == 0, "\(back.stderr)")
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: dest)) == "dest.assetsync/gen-000001")
        #expect(try versions.sandbox.cached() == versions.contents[0])
    }

    /// On XFS the early walk reads the generation that recycling renames away under it: the walk holds
    /// it by descriptor, so a no-op pull finds every file current on every fresh file system, and a
    /// file edited in place is cloned back rather than downloaded.
    @Test("on XFS, a no-op pull that recycles a generation finds every file current, and clones back one edited in place",
          .enabled(if: ReflinkDisk.canMount, Comment(rawValue: ReflinkDisk.requirement)))
    func aRecyclingPullOnXFSFindsEveryFileCurrent() throws {
        let versions = try TwoVersions(count: 4, size: 64 << 10)
        defer { versions.nginx.stop() }
        for round in 0..<6 {
            let disk = try ReflinkDisk(megabytes: 300)
            let dest = disk.path + "/dest"
            func pull(_ options: [String] = []) throws -> RunResult {
                try AssetSyncBinary.run(["pull", versions.manifests[0], "--dest", dest, "--json"] + options)
            }
            #expect(try pull(["--atomic"]).status == 0)
            #expect(try pull().status == 0)
            versions.nginx.clearAccessLog()
            let noop = try pull()
            #expect(noop.status == 0, "\(noop.stderr)")
            #expect(noop.stdout.contains("\"current\":4"), "round \(round): \(noop.stdout)")
            let edited = dest + "/set/f000.bin"
            let handle = try #require(FileHandle(forWritingAtPath: edited))
            try handle.write(contentsOf: Data("edited".utf8))
            try handle.close()
            let repair = try pull()
            #expect(repair.status == 0, "\(repair.stderr)")
            #expect(try versions.sandbox.cached(in: dest) == versions.contents[0], "round \(round)")
            #expect(versions.nginx.settledAccessLog().isEmpty, "round \(round): every file was on the machine")
        }
    }
}
