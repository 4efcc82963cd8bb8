import Foundation
import Glibc
import Testing
import TestSupport

/// A stop request (SIGTERM) while assetsync reads a large file to prove it, before any request: the
/// run ends within moments with exit 130, however large the file, in `pull` and in `verify` alike.
@Suite struct StopWhileReadingTests {
    /// A sparse file of 16 GiB at DEST's `big.bin` under an entry of that size with a SHA-256, so that
    /// proving it reads all of it (tens of seconds here), and no state record vouches for it.
    static func bench() throws -> (sandbox: Sandbox, manifest: String) {
        let sandbox = try Sandbox()
        let size = 16 << 30
        try FileManager.default.createDirectory(atPath: sandbox.dest, withIntermediateDirectories: true)
        let fd = open(sandbox.dest + "/big.bin", O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        try #require(fd >= 0)
        try #require(ftruncate(fd, off_t(size)) == 0)
        close(fd)
        let entry = TestManifest.File(
            path: "big.bin", size: size, crc32: "12345678", url: "http://127.0.0.1:9/big.bin", sha256: String(repeating: "ab", count: 32))
        return (sandbox, try sandbox.writeManifest([entry], name: "big.json"))
    }

    /// Starts `arguments`, sends SIGTERM once it has the file open, and returns how it ended and how
    /// long after the signal.
    static func stopWhileReading(_ arguments: [String], sandbox: Sandbox) throws -> (result: RunResult, seconds: Double) {
        let running = try AssetSyncBinary.start(arguments)
        try #require(running.waitUntilOpen(sandbox.dest + "/big.bin", timeout: 60), "it never opened big.bin: \(running.stderrSoFar)")
        let signalled = ProcessInfo.processInfo.systemUptime
        running.signal(SIGTERM)
        let result = try running.wait(timeout: 120)
        return (result, ProcessInfo.processInfo.systemUptime - signalled)
    }

    @Test("a stop while pull proves a large present file by reading it ends the run at once with exit 130")
    func aStopWhilePullReadsAFileEndsTheRun() throws {
        let (sandbox, manifest) = try Self.bench()
        let (result, seconds) = try Self.stopWhileReading(["pull", manifest, "--dest", sandbox.dest], sandbox: sandbox)
        #expect(result.status == 130, "\(result.stderr)")
        #expect(seconds < 5, "the pull ended \(seconds) s after SIGTERM")
        #expect(result.stderr.contains("0 failed, 1 interrupted"), "\(result.stderr)")
    }

    @Test("a stop while verify reads a large file ends it at once with exit 130 and records nothing")
    func aStopWhileVerifyReadsAFileEndsTheRun() throws {
        let (sandbox, manifest) = try Self.bench()
        let (result, seconds) = try Self.stopWhileReading(["verify", manifest, "--dest", sandbox.dest], sandbox: sandbox)
        #expect(result.status == 130, "\(result.stderr)")
        #expect(seconds < 5, "verify ended \(seconds) s after SIGTERM")
        #expect(result.stderr.contains("Interrupted: nothing was recorded"), "\(result.stderr)")
        #expect(!result.stderr.contains("corrupt"), "\(result.stderr)")
    }
}
