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
        #expect(result.stderr == "Error: --delete removes nothing from \(fixture.dest): it had no .assetsync/ from an earlier pull, "
            + "so it may not be a directory assetsync manages. Pull once without --delete first.\n")
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
        try FileManager.default.createDirectory(atPath: fixture.dest + "/.assetsync", withIntermediateDirectories: true)
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
}
