import Foundation
import Glibc
import Testing

/// `pull --delete`: extras removed (links as links), empty directories after them,
/// `.assetsync/` untouched; refused in an unmanaged directory and past `--max-delete`.
@Suite struct PullDeleteTests {
    typealias Fixture = PullNginxTests.Fixture

    @Test func removesExtrasAndTheDirectoriesTheyLeaveEmpty() throws {
        let fixture = try Fixture(files: ["keep/a.bin": PullNginxTests.random(1000), "b.bin": PullNginxTests.random(10)])
        let nginx = try NginxServer(root: fixture.served)
        defer { nginx.stop() }
        let manifest = try fixture.manifest(base: nginx.baseURL)
        #expect(try AssetSyncBinary.run(["pull", manifest, "--dest", fixture.dest]).status == 0)
        let outside = try TemporaryDirectory()
        let target = outside.path + "/precious"
        try Data("mine".utf8).write(to: URL(fileURLWithPath: target))
        for path in ["old/deep/x.bin", "old/y.bin", "keep/stale.bin", "z.bin"] {
            try FileManager.default.createDirectory(atPath: fixture.dest + "/" + (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try Data("x".utf8).write(to: URL(fileURLWithPath: fixture.dest + "/" + path))
        }
        try FileManager.default.createSymbolicLink(atPath: fixture.dest + "/link", withDestinationPath: outside.path)
        try FileManager.default.createSymbolicLink(atPath: fixture.dest + "/filelink", withDestinationPath: target)

        let plan = try AssetSyncBinary.run(["pull", manifest, "--dest", fixture.dest, "--dry-run"])
        #expect(plan.stdout.contains("extra    1 B         old/deep/x.bin\n"))
        #expect(plan.stdout.contains("6 extra in the cache (pull --delete would remove them).\n"))

        let result = try AssetSyncBinary.run(["pull", manifest, "--dest", fixture.dest, "--delete"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("deleted  old/deep/x.bin\n"))
        #expect(result.stderr.contains(", 6 deleted;"))
        #expect(try fixture.cached() == fixture.files)
        let top = try FileManager.default.contentsOfDirectory(atPath: fixture.dest).sorted()
        #expect(top == [".assetsync", "b.bin", "keep"])
        #expect(try String(contentsOfFile: target, encoding: .utf8) == "mine")
        #expect(try FileManager.default.contentsOfDirectory(atPath: outside.path) == ["precious"])
        #expect(FileManager.default.fileExists(atPath: fixture.dest + "/.assetsync/state"))
    }

    @Test func refusesInADirectoryItDidNotManage() throws {
        let fixture = try Fixture(files: ["a.bin": PullNginxTests.random(10)])
        let nginx = try NginxServer(root: fixture.served)
        defer { nginx.stop() }
        try FileManager.default.createDirectory(atPath: fixture.dest, withIntermediateDirectories: true)
        try Data("someone else's".utf8).write(to: URL(fileURLWithPath: fixture.dest + "/notes.txt"))
        let result = try AssetSyncBinary.run(["pull", try fixture.manifest(base: nginx.baseURL), "--dest", fixture.dest, "--delete"])
        #expect(result.status == 2)
        #expect(result.stderr == "Error: --delete removes nothing from \(fixture.dest): no earlier pull completed there (it has no "
            + ".assetsync/state), so it may not be a directory assetsync manages. Pull once without --delete first.\n")
        #expect(FileManager.default.fileExists(atPath: fixture.dest + "/notes.txt"))
        #expect(!FileManager.default.fileExists(atPath: fixture.dest + "/.assetsync"))  // so a second try refuses too
        #expect(try AssetSyncBinary.run(["pull", try fixture.manifest(base: nginx.baseURL), "--dest", fixture.dest, "--delete"]).status == 2)
        usleep(200_000)
        #expect(nginx.accessLog().isEmpty)
    }

    @Test func aFirstPullIntoANewDirectoryMayCarryDelete() throws {
        let fixture = try Fixture(files: ["a.bin": PullNginxTests.random(10)])
        let nginx = try NginxServer(root: fixture.served)
        defer { nginx.stop() }
        let result = try AssetSyncBinary.run(["pull", try fixture.manifest(base: nginx.baseURL), "--dest", fixture.dest, "--delete"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try fixture.cached() == fixture.files)
    }

    @Test func refusesToDeleteMoreThanMaxDelete() throws {
        let fixture = try Fixture(files: ["a.bin": PullNginxTests.random(10), "new.bin": PullNginxTests.random(10)])
        let nginx = try NginxServer(root: fixture.served)
        defer { nginx.stop() }
        let manifest = try fixture.manifest(base: nginx.baseURL)
        try fixture.completeAnEmptyPull()
        for index in 0..<3 { try Data("x".utf8).write(to: URL(fileURLWithPath: fixture.dest + "/extra\(index)")) }
        let result = try AssetSyncBinary.run(["pull", manifest, "--dest", fixture.dest, "--delete", "--max-delete", "2"])
        #expect(result.status == 2)
        #expect(result.stderr == "Error: --delete would remove 3 files, more than --max-delete 2; nothing was changed. "
            + "Check that this is the right manifest, or pass --max-delete 3.\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: fixture.dest).filter { $0.hasPrefix("extra") }.count == 3)
        usleep(200_000)
        #expect(nginx.accessLog().isEmpty)
        #expect(try AssetSyncBinary.run(["pull", manifest, "--dest", fixture.dest, "--delete", "--max-delete", "3"]).status == 0)
        #expect(try fixture.cached() == fixture.files)
    }

    @Test("item 2: a .assetsync/ left by a run that never finished does not make --delete remove user files")
    func anUnfinishedRunDoesNotMakeADirectoryManaged() throws {
        let fixture = try Fixture(files: ["a.bin": PullNginxTests.random(10)])
        let nginx = try NginxServer(root: fixture.served)
        defer { nginx.stop() }
        // What a run killed before it finished leaves: the lock and a partial, and no state index.
        try FileManager.default.createDirectory(atPath: fixture.dest + "/.assetsync/partial", withIntermediateDirectories: true)
        #expect(FileManager.default.createFile(atPath: fixture.dest + "/.assetsync/lock", contents: nil))
        #expect(FileManager.default.createFile(atPath: fixture.dest + "/.assetsync/partial/0123456789abcdef.part", contents: Data("x".utf8)))
        try Data("someone else's".utf8).write(to: URL(fileURLWithPath: fixture.dest + "/notes.txt"))
        let result = try AssetSyncBinary.run(["pull", try fixture.manifest(base: nginx.baseURL), "--dest", fixture.dest, "--delete"])
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix("Error: --delete removes nothing from \(fixture.dest): "))
        #expect(try String(contentsOfFile: fixture.dest + "/notes.txt", encoding: .utf8) == "someone else's")
        #expect(FileManager.default.fileExists(atPath: fixture.dest + "/.assetsync/partial"))  // not this run's to remove
        usleep(200_000)
        #expect(nginx.accessLog().isEmpty)
    }

    @Test("item 18: a directory where the manifest needs a file: --delete clears it when it holds only directories")
    func deleteClearsEmptyDirectoriesAtAFilesPath() throws {
        let fixture = try Fixture(files: ["a.bin": PullNginxTests.random(10)])
        let nginx = try NginxServer(root: fixture.served)
        defer { nginx.stop() }
        let manifest = try fixture.manifest(base: nginx.baseURL)
        try fixture.completeAnEmptyPull()
        try FileManager.default.createDirectory(atPath: fixture.dest + "/a.bin/x/y", withIntermediateDirectories: true)

        let plain = try AssetSyncBinary.run(["pull", manifest, "--dest", fixture.dest])
        #expect(plain.status == 3)
        #expect(plain.stderr.contains("'\(fixture.dest)/a.bin' is a directory, where the manifest needs a file; move it away "
            + "(or, if it holds no files, run with --delete)"))

        let deleting = try AssetSyncBinary.run(["pull", manifest, "--dest", fixture.dest, "--delete"])
        #expect(deleting.status == 0, "\(deleting.stderr)")
        #expect(try fixture.cached() == fixture.files)
    }

    @Test("item 18: --delete removes a file where the manifest needs a directory before downloading, so the same run succeeds")
    func deleteClearsAFileAtADirectorysPath() throws {
        let fixture = try Fixture(files: ["packs/a.bin": PullNginxTests.random(10)])
        let nginx = try NginxServer(root: fixture.served)
        defer { nginx.stop() }
        let manifest = try fixture.manifest(base: nginx.baseURL)
        try fixture.completeAnEmptyPull()
        try Data("in the way".utf8).write(to: URL(fileURLWithPath: fixture.dest + "/packs"))
        let result = try AssetSyncBinary.run(["pull", manifest, "--dest", fixture.dest, "--delete"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("deleted  packs\n"))
        #expect(try fixture.cached() == fixture.files)
    }
}

extension PullNginxTests.Fixture {
    /// Makes DEST a directory assetsync manages, as any completed pull does: pulls an empty manifest into it.
    func completeAnEmptyPull() throws {
        let empty = try TestManifest.write([], in: work, name: "empty.json")
        let result = try AssetSyncBinary.run(["pull", empty, "--dest", dest])
        #expect(result.status == 0, "\(result.stderr)")
    }
}
