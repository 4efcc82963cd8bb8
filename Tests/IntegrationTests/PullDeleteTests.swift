import Foundation
import Glibc
import Testing
import TestSupport

/// `pull --delete`: extras removed (links as links), empty directories after them,
/// `.assetsync/` untouched; refused in an unmanaged directory and past `--max-delete`.
@Suite struct PullDeleteTests {
    @Test func removesExtrasAndTheDirectoriesTheyLeaveEmpty() throws {
        let sandbox = try Sandbox(serving: ["keep/a.bin": PullNginxTests.random(1000), "b.bin": PullNginxTests.random(10)])
        let nginx = try NginxServer(root: sandbox.served)
        defer { nginx.stop() }
        let manifest = try sandbox.manifest(base: nginx.baseURL)
        #expect(try AssetSyncBinary.run(["pull", manifest, "--dest", sandbox.dest]).status == 0)
        let outside = try TemporaryDirectory()
        let target = outside.path + "/precious"
        try Data("mine".utf8).write(to: URL(fileURLWithPath: target))
        for path in ["old/deep/x.bin", "old/y.bin", "keep/stale.bin", "z.bin"] {
            try FileManager.default.createDirectory(atPath: sandbox.dest + "/" + (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try Data("x".utf8).write(to: URL(fileURLWithPath: sandbox.dest + "/" + path))
        }
        try FileManager.default.createSymbolicLink(atPath: sandbox.dest + "/link", withDestinationPath: outside.path)
        try FileManager.default.createSymbolicLink(atPath: sandbox.dest + "/filelink", withDestinationPath: target)

        let plan = try AssetSyncBinary.run(["pull", manifest, "--dest", sandbox.dest, "--dry-run"])
        #expect(plan.stdout.contains("extra    1 B         old/deep/x.bin\n"))
        #expect(plan.stdout.contains("6 extra in the cache (pull --delete would remove them).\n"))

        let result = try AssetSyncBinary.run(["pull", manifest, "--dest", sandbox.dest, "--delete"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("deleted  old/deep/x.bin\n"))
        #expect(result.stderr.contains(", 6 deleted;"))
        #expect(try sandbox.cached() == sandbox.expected)
        let top = try FileManager.default.contentsOfDirectory(atPath: sandbox.dest).sorted()
        #expect(top == [".assetsync", "b.bin", "keep"])
        #expect(try String(contentsOfFile: target, encoding: .utf8) == "mine")
        #expect(try FileManager.default.contentsOfDirectory(atPath: outside.path) == ["precious"])
        #expect(FileManager.default.fileExists(atPath: sandbox.dest + "/.assetsync/state"))
    }

    @Test func refusesInADirectoryItDidNotManage() throws {
        let sandbox = try Sandbox(serving: ["a.bin": PullNginxTests.random(10)])
        let nginx = try NginxServer(root: sandbox.served)
        defer { nginx.stop() }
        try FileManager.default.createDirectory(atPath: sandbox.dest, withIntermediateDirectories: true)
        try Data("someone else's".utf8).write(to: URL(fileURLWithPath: sandbox.dest + "/notes.txt"))
        let result = try AssetSyncBinary.run(["pull", try sandbox.manifest(base: nginx.baseURL), "--dest", sandbox.dest, "--delete"])
        #expect(result.status == 2)
        #expect(result.stderr == "Error: --delete removes nothing from \(sandbox.dest): no earlier pull completed there (it has no "
            + ".assetsync/state), so it may not be a directory assetsync manages. Pull once without --delete first.\n")
        #expect(FileManager.default.fileExists(atPath: sandbox.dest + "/notes.txt"))
        #expect(!FileManager.default.fileExists(atPath: sandbox.dest + "/.assetsync"))  // so a second try refuses too
        #expect(try AssetSyncBinary.run(["pull", try sandbox.manifest(base: nginx.baseURL), "--dest", sandbox.dest, "--delete"]).status == 2)
        #expect(nginx.settledAccessLog().isEmpty)
    }

    /// Found by `make torture`: a state index that is there but cannot be opened was taken
    /// for a missing one, and `--delete` called a managed DEST unmanaged.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: PullSchedulingTests.strace), "needs strace"))
    func anUnreadableStateIndexIsALocalErrorNotAnUnmanagedDirectory() throws {
        let sandbox = try Sandbox(serving: ["a.bin": PullNginxTests.random(10)])
        let nginx = try NginxServer(root: sandbox.served)
        defer { nginx.stop() }
        let manifest = try sandbox.manifest(base: nginx.baseURL)
        #expect(try AssetSyncBinary.run(["pull", manifest, "--dest", sandbox.dest]).status == 0)
        try Data("x".utf8).write(to: URL(fileURLWithPath: sandbox.dest + "/extra.bin"))
        let state = sandbox.dest + "/.assetsync/state"
        // Every read of the index fails as on a disk gone bad (root is not stopped by permissions).
        let result = try AssetSyncBinary.run(
            ["pull", manifest, "--dest", sandbox.dest, "--delete"],
            prefix: [PullSchedulingTests.strace, "-f", "-qq", "-o", "/dev/null", "-P", state, "-e", "trace=pread64",
                     "-e", "inject=pread64:error=EIO"])
        #expect(result.status == 3, "\(result.stderr)")
        #expect(result.stderr.contains("Error: ") && result.stderr.contains(state) && result.stderr.contains("Input/output error"))
        #expect(!result.stderr.contains("no earlier pull completed"))
        #expect(FileManager.default.fileExists(atPath: sandbox.dest + "/extra.bin"))  // nothing deleted
        #expect(FileManager.default.fileExists(atPath: state))
    }

    @Test func aFirstPullIntoANewDirectoryMayCarryDelete() throws {
        let sandbox = try Sandbox(serving: ["a.bin": PullNginxTests.random(10)])
        let nginx = try NginxServer(root: sandbox.served)
        defer { nginx.stop() }
        let result = try AssetSyncBinary.run(["pull", try sandbox.manifest(base: nginx.baseURL), "--dest", sandbox.dest, "--delete"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try sandbox.cached() == sandbox.expected)
    }

    @Test func refusesToDeleteMoreThanMaxDelete() throws {
        let sandbox = try Sandbox(serving: ["a.bin": PullNginxTests.random(10), "new.bin": PullNginxTests.random(10)])
        let nginx = try NginxServer(root: sandbox.served)
        defer { nginx.stop() }
        let manifest = try sandbox.manifest(base: nginx.baseURL)
        try sandbox.completeAnEmptyPull()
        for index in 0..<3 { try Data("x".utf8).write(to: URL(fileURLWithPath: sandbox.dest + "/extra\(index)")) }
        let result = try AssetSyncBinary.run(["pull", manifest, "--dest", sandbox.dest, "--delete", "--max-delete", "2"])
        #expect(result.status == 2)
        #expect(result.stderr == "Error: --delete would remove 3 files, more than --max-delete 2; nothing was changed. "
            + "Check that this is the right manifest, or pass --max-delete 3.\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: sandbox.dest).filter { $0.hasPrefix("extra") }.count == 3)
        #expect(nginx.settledAccessLog().isEmpty)
        #expect(try AssetSyncBinary.run(["pull", manifest, "--dest", sandbox.dest, "--delete", "--max-delete", "3"]).status == 0)
        #expect(try sandbox.cached() == sandbox.expected)
    }

    @Test("a .assetsync/ left by a run that never finished does not make --delete remove user files")
    func anUnfinishedRunDoesNotMakeADirectoryManaged() throws {
        let sandbox = try Sandbox(serving: ["a.bin": PullNginxTests.random(10)])
        let nginx = try NginxServer(root: sandbox.served)
        defer { nginx.stop() }
        // What a run killed before it finished leaves: the lock and a partial, and no state index.
        try FileManager.default.createDirectory(atPath: sandbox.dest + "/.assetsync/partial", withIntermediateDirectories: true)
        #expect(FileManager.default.createFile(atPath: sandbox.dest + "/.assetsync/lock", contents: nil))
        #expect(FileManager.default.createFile(atPath: sandbox.dest + "/.assetsync/partial/0123456789abcdef.part", contents: Data("x".utf8)))
        try Data("someone else's".utf8).write(to: URL(fileURLWithPath: sandbox.dest + "/notes.txt"))
        let result = try AssetSyncBinary.run(["pull", try sandbox.manifest(base: nginx.baseURL), "--dest", sandbox.dest, "--delete"])
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix("Error: --delete removes nothing from \(sandbox.dest): "))
        #expect(try String(contentsOfFile: sandbox.dest + "/notes.txt", encoding: .utf8) == "someone else's")
        #expect(FileManager.default.fileExists(atPath: sandbox.dest + "/.assetsync/partial"))  // not this run's to remove
        #expect(nginx.settledAccessLog().isEmpty)
    }

    @Test("a directory where the manifest needs a file: --delete clears it when it holds only directories")
    func deleteClearsEmptyDirectoriesAtAFilesPath() throws {
        let sandbox = try Sandbox(serving: ["a.bin": PullNginxTests.random(10)])
        let nginx = try NginxServer(root: sandbox.served)
        defer { nginx.stop() }
        let manifest = try sandbox.manifest(base: nginx.baseURL)
        try sandbox.completeAnEmptyPull()
        try FileManager.default.createDirectory(atPath: sandbox.dest + "/a.bin/x/y", withIntermediateDirectories: true)

        let plain = try AssetSyncBinary.run(["pull", manifest, "--dest", sandbox.dest])
        #expect(plain.status == 3)
        #expect(plain.stderr.contains("'\(sandbox.dest)/a.bin' is a directory, where the manifest needs a file; move it away "
            + "(or, if it holds no files, run with --delete)"))

        let deleting = try AssetSyncBinary.run(["pull", manifest, "--dest", sandbox.dest, "--delete"])
        #expect(deleting.status == 0, "\(deleting.stderr)")
        #expect(try sandbox.cached() == sandbox.expected)
    }

    @Test("--delete removes a file where the manifest needs a directory before downloading, so the same run succeeds")
    func deleteClearsAFileAtADirectorysPath() throws {
        let sandbox = try Sandbox(serving: ["packs/a.bin": PullNginxTests.random(10)])
        let nginx = try NginxServer(root: sandbox.served)
        defer { nginx.stop() }
        let manifest = try sandbox.manifest(base: nginx.baseURL)
        try sandbox.completeAnEmptyPull()
        try Data("in the way".utf8).write(to: URL(fileURLWithPath: sandbox.dest + "/packs"))
        let result = try AssetSyncBinary.run(["pull", manifest, "--dest", sandbox.dest, "--delete"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("deleted  packs\n"))
        #expect(try sandbox.cached() == sandbox.expected)
    }
}
