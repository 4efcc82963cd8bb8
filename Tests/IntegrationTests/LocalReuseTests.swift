import Foundation
import Glibc
import Testing
import TestSupport

/// Local reuse before download: renamed entries are copied from their old paths in DEST,
/// `--reuse-from` copies from another cache, every copy is proven by its CRC-32 before its commit, and
/// nothing in the other cache is reached through a symlink.
@Suite struct LocalReuseTests {
    /// The bytes the rename test moves: 8 files. `ASSETSYNC_REUSE_MIB` scales it (2048 gives 2 GiB,
    /// measured by hand; `make test` keeps 128 MiB so that a 2-core machine stays quick).
    static let renamedMiB = ProcessInfo.processInfo.environment["ASSETSYNC_REUSE_MIB"].flatMap(Int.init) ?? 128

    static func events(_ stdout: String, _ type: String) throws -> [[String: Any]] {
        try stdout.split(separator: "\n").map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any] }
            .filter { $0["type"] as? String == type }
    }

    /// Whole mebibytes or gibibytes as the human lines write them ("16.0 MiB", "2.0 GiB").
    static func human(_ bytes: Int) -> String {
        bytes >= 1 << 30 ? String(format: "%.1f GiB", Double(bytes) / Double(1 << 30)) : String(format: "%.1f MiB", Double(bytes) / Double(1 << 20))
    }

    /// The manifest of the sandbox's files moved from `old/` to `new/`, every other field unchanged.
    static func renamed(_ sandbox: Sandbox, base: String) throws -> String {
        let files = sandbox.files.map { TestManifest.File(path: "new/" + $0.path.dropFirst("old/".count), size: $0.size, crc32: $0.crc32) }
        return try TestManifest.write(files, base: base, in: sandbox.root, name: "renamed.json")
    }

    @Test func aRenamedSetCostsNoRequest() throws {
        let count = 8
        let size = (Self.renamedMiB << 20) / count
        var served: [String: Data] = [:]
        for index in 0..<count { served["old/\(index).bin"] = PullNginxTests.random(size) }
        let sandbox = try Sandbox(serving: served)
        let nginx = try NginxServer(root: sandbox.served)
        defer { nginx.stop() }
        let first = try AssetSyncBinary.run(["pull", try sandbox.manifest(base: nginx.baseURL), "--dest", sandbox.dest])
        #expect(first.status == 0, "\(first.stderr)")
        // Files of 128 MiB and more are fetched in segments: a request per segment, all logged once settled.
        #expect(nginx.settledAccessLog().count >= count)
        nginx.clearAccessLog()

        let renamed = try Self.renamed(sandbox, base: nginx.baseURL)
        let started = Date()
        let metricsPath = sandbox.root.path + "/assetsync.prom"
        let second = try AssetSyncBinary.run(["pull", renamed, "--dest", sandbox.dest, "--delete", "--json", "--metrics-file", metricsPath])
        let seconds = Date().timeIntervalSince(started)
        #expect(second.status == 0, "\(second.stderr)")
        #expect(nginx.settledAccessLog().isEmpty)
        print("reused \(Self.renamedMiB) MiB by renames in \(String(format: "%.2f", seconds)) s (not asserted)")
        for index in 0..<count {
            #expect(FileManager.default.contents(atPath: sandbox.dest + "/new/\(index).bin") == served["old/\(index).bin"])
        }
        #expect(!FileManager.default.fileExists(atPath: sandbox.dest + "/old"))
        let done = try Self.events(second.stdout, "done")
        #expect(Set(done.compactMap { $0["reused_from"] as? String }) == Set((0..<count).map { "old/\($0).bin" }))
        #expect(done.allSatisfy { $0["reused_bytes"] as? Int == size && $0["bytes_transferred"] as? Int == 0 })
        let summary = try #require(try Self.events(second.stdout, "summary").first)
        #expect(summary["bytes_reused"] as? Int == count * size)
        #expect(summary["bytes_transferred"] as? Int == 0)
        #expect(second.stderr.contains("reused   new/0.bin (\(Self.human(size))) from old/0.bin\n"))
        #expect(second.stderr.contains("; 0 B transferred, \(Self.human(count * size)) reused in "))
        let metrics = try PrometheusText(String(contentsOfFile: metricsPath, encoding: .utf8))
        #expect(metrics.value("assetsync_last_run_reused_files") == Double(count))
        #expect(metrics.value("assetsync_last_run_reused_bytes") == Double(count * size))
        #expect(metrics.value("assetsync_last_run_transferred_bytes") == 0)

        // The next run finds every renamed file current from its state record alone.
        let third = try AssetSyncBinary.run(["pull", renamed, "--dest", sandbox.dest])
        #expect(third.stderr.hasPrefix("0 new, 0 updated, \(count) current, 0 failed; 0 B transferred in "))
    }

    @Test func reuseFromAnotherCacheProvesEveryCopyAndFollowsNoLink() throws {
        let files = ["a.bin": PullNginxTests.random(3 << 20), "b.bin": PullNginxTests.random(2 << 20),
                     "c.bin": PullNginxTests.random(1 << 20), "sub/d.bin": PullNginxTests.random(1 << 20)]
        let sandbox = try Sandbox(serving: files)
        let nginx = try NginxServer(root: sandbox.served)
        defer { nginx.stop() }
        let manifest = try sandbox.manifest(base: nginx.baseURL)
        let other = sandbox.root.path + "/other"
        #expect(try AssetSyncBinary.run(["pull", manifest, "--dest", other]).status == 0)

        // b.bin: other bytes of the same size, its mtime set back, so its state record still describes it.
        let altered = other + "/b.bin"
        let times = try FileManager.default.attributesOfItem(atPath: altered)[.modificationDate] as! Date
        var status = stat()
        #expect(stat(altered, &status) == 0)
        let handle = try #require(FileHandle(forUpdatingAtPath: altered))
        try handle.seek(toOffset: 1000)
        try handle.write(contentsOf: Data([0x55, 0xAA]))
        try handle.close()
        var stamps = [status.st_atim, status.st_mtim]
        #expect(utimensat(AT_FDCWD, altered, &stamps, 0) == 0)
        #expect(try FileManager.default.attributesOfItem(atPath: altered)[.modificationDate] as! Date == times)
        // c.bin and sub/: links to the right bytes outside the cache, which must not be followed.
        let outside = try TemporaryDirectory()
        try files["c.bin"]!.write(to: URL(fileURLWithPath: outside.path + "/c.bin"))
        try FileManager.default.createDirectory(atPath: outside.path + "/sub", withIntermediateDirectories: true)
        try files["sub/d.bin"]!.write(to: URL(fileURLWithPath: outside.path + "/sub/d.bin"))
        try FileManager.default.removeItem(atPath: other + "/c.bin")
        try FileManager.default.createSymbolicLink(atPath: other + "/c.bin", withDestinationPath: outside.path + "/c.bin")
        try FileManager.default.removeItem(atPath: other + "/sub")
        try FileManager.default.createSymbolicLink(atPath: other + "/sub", withDestinationPath: outside.path + "/sub")
        _ = nginx.settledAccessLog()  // the first pull's lines, however late nginx writes them
        nginx.clearAccessLog()

        let result = try AssetSyncBinary.run(["pull", manifest, "--dest", sandbox.dest, "--reuse-from", other, "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try sandbox.cached() == sandbox.expected)
        #expect(Set(nginx.settledAccessLog().map(\.path)) == ["/b.bin", "/c.bin", "/sub/d.bin"])
        let done = try Self.events(result.stdout, "done")
        #expect(done.compactMap { $0["reused_from"] as? String } == [other + "/a.bin"])
        #expect(result.stderr.contains("reused   a.bin (3.0 MiB) from \(other)/a.bin\n"))
        let summary = try #require(try Self.events(result.stdout, "summary").first)
        #expect(summary["bytes_reused"] as? Int == 3 << 20)
        #expect(summary["bytes_transferred"] as? Int == 4 << 20)
    }

    /// A state index whose record names a path that no manifest could (`../outside/dot`), hand-written
    /// in another cache: the record is dropped, so the file it names outside that cache, though of the
    /// right bytes, is neither opened nor copied, and the entry is downloaded; the index's other records
    /// are still used.
    @Test func aRecordLeadingOutOfTheOtherCacheIsIgnored() throws {
        let bytes = ["a.bin": PullNginxTests.random(1 << 20), "dot": PullNginxTests.random(70_000)]
        let sandbox = try Sandbox(serving: bytes)
        let nginx = try NginxServer(root: sandbox.served)
        defer { nginx.stop() }
        let other = sandbox.root.path + "/other"
        let first = try TestManifest.write(sandbox.files.filter { $0.path == "a.bin" }, base: nginx.baseURL, in: sandbox.root, name: "a.json")
        #expect(try AssetSyncBinary.run(["pull", first, "--dest", other]).status == 0)
        let outside = sandbox.root.path + "/outside"
        try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
        try bytes["dot"]!.write(to: URL(fileURLWithPath: outside + "/dot"))
        var status = stat()
        #expect(stat(outside + "/dot", &status) == 0)
        // The other cache's index, with a record of the outside file (its size, CRC-32, mtime and inode) added.
        let statePath = other + "/.assetsync/state"
        let lines = try String(contentsOfFile: statePath, encoding: .utf8).split(separator: "\n").map(String.init)
        try #require(lines.count == 3 && lines[2].hasPrefix("end 1 "), "\(lines)")
        let mtime = Int64(status.st_mtim.tv_sec) * 1_000_000_000 + Int64(status.st_mtim.tv_nsec)
        let escaping = "\(TestManifest.crc32Hex(bytes["dot"]!)) \(bytes["dot"]!.count) \(mtime) \(status.st_ino) ../outside/dot"
        let body = [lines[0], escaping, lines[1]].map { $0 + "\n" }.joined()
        try (body + "end 2 \(TestManifest.crc32Hex(Data(body.utf8)))\n").write(toFile: statePath, atomically: false, encoding: .utf8)
        // Whatever opens the outside directory or a file in it from now on is seen.
        let watch = inotify_init1(O_NONBLOCK | O_CLOEXEC)
        try #require(watch >= 0)
        defer { close(watch) }
        try #require(inotify_add_watch(watch, outside, UInt32(IN_OPEN)) >= 0)
        _ = nginx.settledAccessLog()
        nginx.clearAccessLog()

        let result = try AssetSyncBinary.run(["pull", try sandbox.manifest(base: nginx.baseURL), "--dest", sandbox.dest, "--reuse-from", other, "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try sandbox.cached() == sandbox.expected)
        #expect(nginx.settledAccessLog().map(\.path) == ["/dot"], "the file outside the other cache was not copied: it was downloaded")
        #expect(try Self.events(result.stdout, "done").compactMap { $0["reused_from"] as? String } == [other + "/a.bin"])
        var events = [UInt8](repeating: 0, count: 4096)
        #expect(read(watch, &events, events.count) == -1 && errno == EAGAIN, "something outside the other cache was opened")
    }

    /// `plan` and `pull --dry-run` say which files the pull may copy rather than download (a renamed
    /// entry, a file of a `--reuse-from` cache) and how many bytes, without making anything; the pull
    /// then copies exactly those.
    @Test func thePlanSaysWhichFilesMayBeCopied() throws {
        let bytes = ["a": PullNginxTests.random(4000), "c": PullNginxTests.random(2000), "x": PullNginxTests.random(1000),
                     "z": PullNginxTests.random(500)]
        let sandbox = try Sandbox(serving: ["old/a.bin": bytes["a"]!, "c.bin": bytes["c"]!])
        try sandbox.writeServed("x.bin", bytes["x"]!)
        try sandbox.writeServed("z.bin", bytes["z"]!)
        let nginx = try NginxServer(root: sandbox.served)
        defer { nginx.stop() }
        #expect(try AssetSyncBinary.run(["pull", try sandbox.manifest(base: nginx.baseURL), "--dest", sandbox.dest]).status == 0)
        let other = sandbox.root.path + "/other"
        func file(_ path: String, _ name: String) -> TestManifest.File {
            TestManifest.File(path: path, size: bytes[name]!.count, crc32: TestManifest.crc32Hex(bytes[name]!))
        }
        let otherManifest = try TestManifest.write([file("x.bin", "x")], base: nginx.baseURL, in: sandbox.root, name: "other.json")
        #expect(try AssetSyncBinary.run(["pull", otherManifest, "--dest", other]).status == 0)
        let next = try TestManifest.write(
            [file("new/a.bin", "a"), file("c.bin", "c"), file("y.bin", "x"), file("z.bin", "z")], base: nginx.baseURL,
            in: sandbox.root, name: "next.json")
        let before = sandbox.finalFiles()
        _ = nginx.settledAccessLog()
        nginx.clearAccessLog()

        let json = try AssetSyncBinary.run(["plan", next, "--dest", sandbox.dest, "--reuse-from", other, "--json"])
        #expect(json.status == 0, "\(json.stderr)")
        let lines = try Self.events(json.stdout, "plan")
        let reusable = Dictionary(uniqueKeysWithValues: lines.compactMap { line in
            (line["reusable_from"] as? String).map { (line["path"] as! String, $0) }
        })
        #expect(reusable == ["new/a.bin": "old/a.bin", "y.bin": other + "/x.bin"])
        #expect(try Self.events(json.stdout, "summary").first?["bytes_reusable"] as? Int == 5000)
        let table = try AssetSyncBinary.run(["pull", next, "--dest", sandbox.dest, "--reuse-from", other, "--dry-run"])
        #expect(table.stdout.contains("new/a.bin  (may be copied from old/a.bin)\n"), "\(table.stdout)")
        #expect(table.stdout.contains("y.bin  (may be copied from \(other)/x.bin)\n"))
        #expect(table.stdout.contains("Of that, 4.9 KiB may be copied from files already on this machine instead"))
        #expect(sandbox.finalFiles() == before, "a plan makes nothing")
        #expect(nginx.settledAccessLog().isEmpty)

        let pull = try AssetSyncBinary.run(["pull", next, "--dest", sandbox.dest, "--reuse-from", other, "--json"])
        #expect(pull.status == 0, "\(pull.stderr)")
        let done = try Self.events(pull.stdout, "done")
        #expect(Dictionary(uniqueKeysWithValues: done.compactMap { event in
            (event["reused_from"] as? String).map { (event["path"] as! String, $0) }
        }) == reusable, "the pull copied what the plan said it may")
        #expect(nginx.settledAccessLog().map(\.path) == ["/z.bin"])
    }

    /// The free-space check counts only what is left to download once local copies are made: on a
    /// file system with reflinks, a renamed set needs no room at all, and a disk with less free space
    /// than the set still takes the rename.
    @Test(.enabled(if: ReflinkDisk.canMount, Comment(rawValue: ReflinkDisk.requirement)))
    func onXFSARenameNeedsNoFreeSpace() throws {
        let disk = try ReflinkDisk(megabytes: 400)
        var served: [String: Data] = [:]
        for index in 0..<4 { served["old/\(index).bin"] = PullNginxTests.random(16 << 20) }
        let sandbox = try Sandbox(serving: served)
        let nginx = try NginxServer(root: sandbox.served)
        defer { nginx.stop() }
        let dest = disk.path + "/cache"
        #expect(try AssetSyncBinary.run(["pull", try sandbox.manifest(base: nginx.baseURL), "--dest", dest]).status == 0)
        // Leave 32 MiB free: half of what the renamed set would need if it were downloaded.
        let filler = open(disk.path + "/filler", O_WRONLY | O_CREAT | O_EXCL, 0o644)
        try #require(filler >= 0)
        defer { close(filler) }
        try #require(posix_fallocate(filler, 0, off_t(disk.freeBytes() - (32 << 20))) == 0)
        #expect(disk.freeBytes() < 40 << 20)
        _ = nginx.settledAccessLog()
        nginx.clearAccessLog()
        let result = try AssetSyncBinary.run(["pull", try Self.renamed(sandbox, base: nginx.baseURL), "--dest", dest, "--delete"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(nginx.settledAccessLog().isEmpty)
        for index in 0..<4 { #expect(FileManager.default.contents(atPath: dest + "/new/\(index).bin") == served["old/\(index).bin"]) }
    }

    @Test func reuseFromADirectoryThatIsNotOneIsAUsageError() throws {
        let sandbox = try Sandbox(serving: ["a.bin": PullNginxTests.random(10)])
        let result = try AssetSyncBinary.run(
            ["pull", try sandbox.manifest(base: "http://127.0.0.1:9/"), "--dest", sandbox.dest, "--reuse-from", sandbox.root.path + "/none"])
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix("Error: '--reuse-from \(sandbox.root.path)/none': not a directory that can be opened\n"))
    }

    /// On a file system with reflinks, a renamed set is cloned: the free blocks stay as they were.
    /// 256 MiB by default; `ASSETSYNC_REUSE_MIB` scales it as for the rename test.
    @Test(.enabled(if: ReflinkDisk.canMount, Comment(rawValue: ReflinkDisk.requirement)))
    func onXFSARenameIsAClone() throws {
        let totalMiB = ProcessInfo.processInfo.environment["ASSETSYNC_REUSE_MIB"].flatMap(Int.init) ?? 256
        let disk: ReflinkDisk
        do { disk = try ReflinkDisk(megabytes: 2 * totalMiB + 768) } catch {
            Issue.record("an XFS image could not be mounted on a loop device here: \(error)")
            return
        }
        let count = 8
        let size = (totalMiB << 20) / count
        var served: [String: Data] = [:]
        for index in 0..<count { served["old/\(index).bin"] = PullNginxTests.random(size) }
        let sandbox = try Sandbox(serving: served)
        let nginx = try NginxServer(root: sandbox.served)
        defer { nginx.stop() }
        let dest = disk.path + "/cache"
        #expect(try AssetSyncBinary.run(["pull", try sandbox.manifest(base: nginx.baseURL), "--dest", dest]).status == 0)
        _ = nginx.settledAccessLog()  // the first pull's lines, however late nginx writes them
        nginx.clearAccessLog()
        sync()
        let freeBefore = disk.freeBytes()
        let renamed = try Self.renamed(sandbox, base: nginx.baseURL)
        let started = Date()
        let result = try AssetSyncBinary.run(["pull", renamed, "--dest", dest, "--json"])
        let seconds = Date().timeIntervalSince(started)
        sync()
        let added = freeBefore - disk.freeBytes()
        #expect(result.status == 0, "\(result.stderr)")
        #expect(nginx.settledAccessLog().isEmpty)
        #expect(try Self.events(result.stdout, "done").allSatisfy { ($0["reused_from"] as? String)?.hasPrefix("old/") == true })
        for index in 0..<count { #expect(FileManager.default.contents(atPath: dest + "/new/\(index).bin") == served["old/\(index).bin"]) }
        // The old and new paths share their blocks: far less than one file's data was added (metadata only).
        #expect(added < Int64(size), "\(added) bytes of free space used by a clone of \(count * size)")
        let perGiB = seconds / (Double(count * size) / Double(1 << 30))
        print("XFS reflink reuse: \(count * size >> 20) MiB in \(String(format: "%.3f", seconds)) s for the whole run "
            + "(\(String(format: "%.3f", perGiB)) s per GiB), \(added) bytes of free space used (not asserted)")
    }
}
