import Foundation
import Glibc
import Testing
import TestSupport

/// What unattended runs rely on: the lock between concurrent pulls, the disk
/// preflight and a full disk mid-run, housekeeping of stale partials, and splay.
@Suite struct PullSchedulingTests {
    private static func slowNginx(_ sandbox: Sandbox) throws -> NginxServer {
        try NginxServer(root: sandbox.served, extraConfig: NginxServer.slowLocation(serving: sandbox.served))
    }

    @Test func aSecondRunIsLockedOutNamingTheHolderUntilTheHolderIsKilled() throws {
        let sandbox = try Sandbox(serving: ["big.bin": PullNginxTests.random(24 << 20)])
        let nginx = try Self.slowNginx(sandbox)
        defer { nginx.stop() }
        let manifest = try sandbox.manifest(base: nginx.baseURL + "slow/")
        let holder = try AssetSyncBinary.start(["pull", manifest, "--dest", sandbox.dest])
        holder.waitForPartial(in: sandbox.dest, bytes: 1 << 20)

        let second = try AssetSyncBinary.run(["pull", manifest, "--dest", sandbox.dest])
        #expect(second.status == 4)
        #expect(second.stderr.hasPrefix("Error: another assetsync run holds \(sandbox.dest)/.assetsync/lock: pid \(holder.pid) on host "))
        #expect(second.stderr.hasSuffix("It is freed when that run ends; wait for it, or pass --lock-wait SECONDS.\n"))
        let lockFile = try String(contentsOfFile: sandbox.dest + "/.assetsync/lock", encoding: .utf8)
        #expect(lockFile.hasPrefix("pid \(holder.pid)\nhost "))
        // The manifest is read while the lock is tried: a bad one is still the error told.
        let work = try TemporaryDirectory()
        let bad = work.path + "/bad.xml"
        try Data("<manifest version=\"1\"><file path=".utf8).write(to: URL(fileURLWithPath: bad))
        let refused = try AssetSyncBinary.run(["pull", bad, "--dest", sandbox.dest])
        #expect(refused.status == 2)
        #expect(refused.stderr.hasPrefix("Error: ") && refused.stderr.contains("bad.xml") && !refused.stderr.contains("lock"))

        let waiting = try AssetSyncBinary.start(["pull", manifest, "--dest", sandbox.dest, "--lock-wait", "60"])
        #expect(waiting.waitUntilOpen(sandbox.dest + "/.assetsync/lock"))
        #expect(waiting.process.isRunning)  // waiting for the lock, not failing
        holder.signal(SIGKILL)
        _ = try holder.wait()
        let result = try waiting.wait(timeout: 60)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try sandbox.cached() == sandbox.expected)
    }

    @Test func aBadManifestLeavesNoDestinationBehind() throws {
        let work = try TemporaryDirectory()
        let bad = work.path + "/bad.xml"
        try Data("<manifest version=\"1\"><file path=\"a\" size=\"1\"/></manifest>".utf8).write(to: URL(fileURLWithPath: bad))
        for dest in [work.path + "/new", work.path + "/empty"] {
            if dest.hasSuffix("empty") { try FileManager.default.createDirectory(atPath: dest, withIntermediateDirectories: false) }
            let result = try AssetSyncBinary.run(["pull", bad, "--dest", dest])
            #expect(result.status == 2)
            #expect(result.stderr.hasPrefix("Error: ") && result.stderr.contains("bad.xml"))
            // Read while the cache was opened and locked, it leaves nothing of that behind.
            #expect(FileManager.default.fileExists(atPath: dest) == dest.hasSuffix("empty"))
            #expect(!FileManager.default.fileExists(atPath: dest + "/.assetsync"))
        }
    }

    @Test func twoConcurrentPullsNeverBothWrite() throws {
        let sandbox = try Sandbox(serving: ["a.bin": PullNginxTests.random(2 << 20), "b.bin": PullNginxTests.random(3 << 20)])
        let nginx = try NginxServer(root: sandbox.served)
        defer { nginx.stop() }
        let manifest = try sandbox.manifest(base: nginx.baseURL)
        let runs = try (0..<2).map { _ in try AssetSyncBinary.start(["pull", manifest, "--dest", sandbox.dest, "--lock-wait", "30"]) }
        let results = try runs.map { try $0.wait() }
        #expect(results.map(\.status) == [0, 0])
        #expect(try sandbox.cached() == sandbox.expected)
        // One of them downloaded both files; the other found them current.
        #expect(nginx.waitForAccessLog(count: 2).count == 2)
        #expect(results.contains { $0.stderr.hasPrefix("0 new, 0 updated, 2 current") })
    }

    /// A tmpfs of limited size, mounted for one test.
    final class SmallDisk {
        let path: String
        init(megabytes: Int) throws {
            let directory = try TemporaryDirectory()
            path = directory.path + "-disk"
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            let mount = Process()
            mount.executableURL = URL(fileURLWithPath: "/bin/mount")
            mount.arguments = ["-t", "tmpfs", "-o", "size=\(megabytes)m", "tmpfs", path]
            try mount.run()
            mount.waitUntilExit()
            guard mount.terminationStatus == 0 else { throw CocoaError(.fileWriteNoPermission) }
        }
        deinit {
            let umount = Process()
            umount.executableURL = URL(fileURLWithPath: "/bin/umount")
            umount.arguments = ["-l", path]
            try? umount.run()
            umount.waitUntilExit()
            try? FileManager.default.removeItem(atPath: path)
        }
    }

    @Test(.enabled(if: getuid() == 0, "mounting a tmpfs needs root"))
    func notEnoughSpaceFailsBeforeAnyRequest() throws {
        let disk = try SmallDisk(megabytes: 4)
        let sandbox = try Sandbox(serving: ["big.bin": PullNginxTests.random(6 << 20)])
        let nginx = try NginxServer(root: sandbox.served)
        defer { nginx.stop() }
        let dest = disk.path + "/cache"
        let result = try AssetSyncBinary.run(["pull", try sandbox.manifest(base: nginx.baseURL), "--dest", dest])
        #expect(result.status == 3)
        #expect(result.stderr.hasPrefix("Error: not enough free space in \(dest): the pull needs 7.1 MiB (6.0 MiB to download and a margin of 1.1 MiB), but "))
        #expect(result.stderr.hasSuffix(" is free. Nothing was downloaded; free some space and run again.\n"))
        #expect(nginx.settledAccessLog().isEmpty)
    }

    @Test(.enabled(if: getuid() == 0, "mounting a tmpfs needs root"))
    func aDiskFillingUpMidRunExits3KeepsThePartialAndResumes() throws {
        let disk = try SmallDisk(megabytes: 12)
        let sandbox = try Sandbox(serving: ["big.bin": PullNginxTests.random(9 << 20)])
        let nginx = try Self.slowNginx(sandbox)
        defer { nginx.stop() }
        let dest = disk.path + "/cache"
        let manifest = try sandbox.manifest(base: nginx.baseURL + "slow/")
        let running = try AssetSyncBinary.start(["pull", manifest, "--dest", dest])
        running.waitForPartial(in: dest, bytes: 1 << 20)
        // Someone else fills the disk while the download runs.
        let filler = disk.path + "/filler"
        #expect(FileManager.default.createFile(atPath: filler, contents: nil))
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: filler))
        while (try? handle.write(contentsOf: Data(count: 256 << 10))) != nil {}
        try? handle.close()
        let result = try running.wait(timeout: 60)
        #expect(result.status == 3)
        #expect(result.stderr.contains("No space left on device"))
        #expect(!FileManager.default.fileExists(atPath: dest + "/big.bin"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: dest + "/.assetsync/partial").contains { $0.hasSuffix(".part") })

        try FileManager.default.removeItem(atPath: filler)
        let resumed = try AssetSyncBinary.run(["pull", manifest, "--dest", dest])
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: dest + "/big.bin")) == sandbox.expected["big.bin"])
        #expect(nginx.waitForAccessLog(count: 2).last?.status == 206)
    }

    @Test func stalePartialsAreSweptAtTheStart() throws {
        let sandbox = try Sandbox(serving: ["a.bin": PullNginxTests.random(100_000)])
        let nginx = try NginxServer(root: sandbox.served)
        defer { nginx.stop() }
        let manifest = try sandbox.manifest(base: nginx.baseURL)
        let partial = sandbox.dest + "/.assetsync/partial"
        try FileManager.default.createDirectory(atPath: partial, withIntermediateDirectories: true)
        for name in ["0000000000000000.part", "0000000000000000.resume", "deadbeefdeadbeef.part", "1111111111111111.resume.tmp", "x.empty"] {
            try Data("junk".utf8).write(to: URL(fileURLWithPath: partial + "/" + name))
        }
        let result = try AssetSyncBinary.run(["pull", manifest, "--dest", sandbox.dest])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: partial).isEmpty)
    }

    @Test func splayWaitsBeforeTheFirstRequestAndCtrlCEndsTheWait() throws {
        let sandbox = try Sandbox(serving: ["a.bin": PullNginxTests.random(1000)])
        let nginx = try NginxServer(root: sandbox.served)
        defer { nginx.stop() }
        let running = try AssetSyncBinary.start(["pull", try sandbox.manifest(base: nginx.baseURL), "--dest", sandbox.dest, "--splay", "3600"])
        #expect(running.waitUntilCatching(SIGINT))  // so that SIGINT ends the wait rather than the process
        #expect(running.process.isRunning)
        running.signal(SIGINT)
        let result = try running.wait(timeout: 10)
        #expect(result.status == 130)
        #expect(nginx.settledAccessLog().isEmpty)
    }

    static let strace = "/usr/bin/strace"

    /// Pulls `manifest` into `dest` under strace, which sends SIGKILL at the run's second `renameat`.
    private static func pullKilledAtTheSecondRename(_ manifest: String, into dest: String) throws -> RunResult {
        try AssetSyncBinary.run(
            ["pull", manifest, "--dest", dest],
            prefix: [strace, "-f", "-qq", "-o", "/dev/null", "-e", "trace=renameat", "-e", "inject=renameat:signal=SIGKILL:when=2"])
    }

    /// Pulls `manifest` into `dest` under strace, which sends SIGKILL at the first `renameat` into `dest`
    /// itself (`-P`: a call on a descriptor of that directory): the commit of a file at the top of the
    /// tree, on whichever thread makes it. The resume record's and the index's renames stay in `.assetsync`.
    static func pullKilledAtTheCommitRename(_ manifest: String, into dest: String) throws -> RunResult {
        try AssetSyncBinary.run(
            ["pull", manifest, "--dest", dest],
            prefix: [strace, "-f", "-qq", "-o", "/dev/null", "-P", dest, "-e", "trace=renameat", "-e", "inject=renameat:signal=SIGKILL:when=1"])
    }

    /// Killed while the state index is being written: strace sends SIGKILL at the second `renameat`
    /// (the first commits the empty file, the second would put the new index in place). The file is
    /// committed, the index is not, and the next run proves the file instead of fetching it.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: strace), "needs strace"))
    func killedWhileWritingTheIndexCostsOnlyReverification() throws {
        let sandbox = try Sandbox(serving: ["empty.cfg": Data()])
        let nginx = try NginxServer(root: sandbox.served)
        defer { nginx.stop() }
        let manifest = try sandbox.manifest(base: nginx.baseURL)
        let killed = try Self.pullKilledAtTheSecondRename(manifest, into: sandbox.dest)
        #expect(killed.status != 0)
        #expect(try sandbox.cached() == sandbox.expected)
        #expect(!FileManager.default.fileExists(atPath: sandbox.dest + "/.assetsync/state"))
        // The index's temporary was staged where every in-flight file lives, and nowhere else.
        #expect(try FileManager.default.contentsOfDirectory(atPath: sandbox.dest + "/.assetsync/partial").contains { $0.hasPrefix("state.tmp-") })
        #expect(try !FileManager.default.contentsOfDirectory(atPath: sandbox.dest + "/.assetsync").contains { $0.contains(".tmp-") })
        nginx.clearAccessLog()
        let next = try AssetSyncBinary.run(["pull", manifest, "--dest", sandbox.dest])
        #expect(next.status == 0, "\(next.stderr)")
        #expect(next.stderr.hasPrefix("0 new, 0 updated, 1 current, 0 failed"))
        #expect(nginx.settledAccessLog().isEmpty)
        #expect(FileManager.default.fileExists(atPath: sandbox.dest + "/.assetsync/state"))
    }

    /// Killed between the last byte and the commit (strace: SIGKILL at the commit's `renameat`, after
    /// the resume record's): the next run proves the complete partial and commits it without a request.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: strace), "needs strace"))
    func aCompletePartialIsCommittedWithoutARequest() throws {
        let sandbox = try Sandbox(serving: ["a.bin": PullNginxTests.random(300_000)])
        let nginx = try NginxServer(root: sandbox.served)
        defer { nginx.stop() }
        let manifest = try sandbox.manifest(base: nginx.baseURL)
        let killed = try Self.pullKilledAtTheCommitRename(manifest, into: sandbox.dest)
        #expect(killed.status != 0)
        #expect(try sandbox.cached().isEmpty)
        nginx.clearAccessLog()
        let next = try AssetSyncBinary.run(["pull", manifest, "--dest", sandbox.dest])
        #expect(next.status == 0, "\(next.stderr)")
        #expect(try sandbox.cached() == sandbox.expected)
        #expect(nginx.settledAccessLog().isEmpty)
    }
}
