import Foundation
import Glibc
import Testing
import TestSupport

/// `assetsync pull` against a real nginx: a full pull, the no-op that follows, a
/// changed file, and resuming after `kill -9` and after Ctrl-C.
@Suite struct PullNginxTests {
    static func random(_ count: Int) -> Data {
        var generator = SystemRandomNumberGenerator()
        var bytes = [UInt8](repeating: 0, count: count)
        for index in stride(from: 0, to: count, by: 8) {
            let value = generator.next()
            for offset in 0..<min(8, count - index) { bytes[index + offset] = UInt8(truncatingIfNeeded: value >> (offset * 8)) }
        }
        return Data(bytes)
    }

    @Test func fullPullThenANoOpThenAChangedFile() throws {
        let sandbox = try Sandbox(serving: [
            "videos/intro.mp4": Self.random(3 << 20),
            "packs/level 1.zip": Self.random(700_000),
            "packs/dlc/winter/sounds.zip": Self.random(123_457),
            "config/empty.cfg": Data(),
            "readme.txt": Data("hello".utf8),
        ])
        let nginx = try NginxServer(root: sandbox.served)
        defer { nginx.stop() }
        let manifest = try sandbox.manifest(base: nginx.baseURL)

        let first = try AssetSyncBinary.run(["pull", manifest, "--dest", sandbox.dest])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(try sandbox.cached() == sandbox.expected)
        #expect(Sandbox.kind(sandbox.partialDirectory) == S_IFDIR)
        #expect(sandbox.partialNames().isEmpty)
        #expect(first.stderr.contains("new      packs/level 1.zip (683.6 KiB)\n"))
        #expect(first.stderr.hasSuffix("5 new, 0 updated, 0 current, 0 failed; 3.8 MiB transferred in "
            + first.stderr.split(separator: "transferred in ").last!))
        let requests = nginx.waitForAccessLog(count: 4)
        #expect(requests.count == 4)  // the empty file needs no request
        #expect(Set(requests.map(\.path)) == ["/videos/intro.mp4", "/packs/level%201.zip", "/packs/dlc/winter/sounds.zip", "/readme.txt"])
        #expect(requests.allSatisfy { $0.status == 200 && $0.range == nil })

        nginx.clearAccessLog()
        let second = try AssetSyncBinary.run(["pull", manifest, "--dest", sandbox.dest])
        #expect(second.status == 0)
        #expect(second.stderr.hasPrefix("0 new, 0 updated, 5 current, 0 failed; 0 B transferred in "))
        #expect(nginx.settledAccessLog().isEmpty)

        let changed = Self.random(500_000)
        try sandbox.serve("packs/level 1.zip", changed)
        let updatedManifest = try sandbox.manifest(base: nginx.baseURL)
        let third = try AssetSyncBinary.run(["pull", updatedManifest, "--dest", sandbox.dest])
        #expect(third.status == 0, "\(third.stderr)")
        #expect(third.stderr.contains("updated  packs/level 1.zip (488.3 KiB)\n"))
        #expect(try sandbox.cached() == sandbox.expected)
        let log = nginx.waitForAccessLog(count: 1)
        #expect(log.map(\.path) == ["/packs/level%201.zip"])
    }

    @Test func sameSizeButDifferentContentIsProvenAndReplaced() throws {
        let sandbox = try Sandbox(serving: ["a.bin": Self.random(200_000)])
        let nginx = try NginxServer(root: sandbox.served)
        defer { nginx.stop() }
        let manifest = try sandbox.manifest(base: nginx.baseURL)
        try FileManager.default.createDirectory(atPath: sandbox.dest, withIntermediateDirectories: true)
        try Self.random(200_000).write(to: URL(fileURLWithPath: sandbox.dest + "/a.bin"))
        let result = try AssetSyncBinary.run(["pull", manifest, "--dest", sandbox.dest])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try sandbox.cached() == sandbox.expected)
        #expect(nginx.waitForAccessLog(count: 1).map(\.path) == ["/a.bin"])
    }

    /// Starts a pull of a rate-limited file and returns once some bytes are in its partial.
    private func startSlowPull(_ sandbox: Sandbox, manifest: String) throws -> RunningAssetSync {
        let running = try AssetSyncBinary.start(["pull", manifest, "--dest", sandbox.dest])
        if !running.waitForPartial(in: sandbox.dest, bytes: 2 << 20) { running.signal(SIGKILL) }
        return running
    }

    @Test func resumesWithRangeAfterKill9() throws {
        let sandbox = try Sandbox(serving: ["big/video.bin": Self.random(24 << 20)])
        let nginx = try NginxServer(root: sandbox.served, extraConfig: NginxServer.slowLocation(serving: sandbox.served))
        defer { nginx.stop() }
        let manifest = try sandbox.manifest(base: nginx.baseURL + "slow/")

        let killed = try startSlowPull(sandbox, manifest: manifest)
        killed.signal(SIGKILL)
        #expect(try killed.wait().status == 128 + SIGKILL || killed.process.terminationReason == .uncaughtSignal)
        #expect(try sandbox.cached().isEmpty)
        let partial = sandbox.partialNames().first { $0.hasSuffix(".part") }!
        let kept = try FileManager.default.attributesOfItem(atPath: sandbox.dest + "/.assetsync/partial/" + partial)[.size] as! Int
        #expect(kept >= 2 << 20 && kept < 24 << 20)

        let resumed = try AssetSyncBinary.run(["pull", manifest, "--dest", sandbox.dest])
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(try sandbox.cached() == sandbox.expected)
        #expect(Sandbox.kind(sandbox.partialDirectory) == S_IFDIR)
        #expect(sandbox.partialNames().isEmpty)
        let log = nginx.waitForAccessLog(count: 2)
        #expect(log.count == 2)
        #expect(log[0].range == nil)
        #expect(log[1].range.map { $0.hasPrefix("bytes=") && $0.hasSuffix("-") } == true)
        let resumedFrom = Int(log[1].range!.dropFirst("bytes=".count).dropLast())!
        #expect(resumedFrom >= 2 << 20 && resumedFrom <= kept)
        #expect(log[1].ifRange != nil)
        #expect(log[1].status == 206)
        #expect(log[1].bodyBytesSent == (24 << 20) - resumedFrom)
    }

    @Test func ctrlCKeepsThePartialAndExits130() throws {
        let sandbox = try Sandbox(serving: ["big/video.bin": Self.random(24 << 20), "small.txt": Data("s".utf8)])
        let nginx = try NginxServer(root: sandbox.served, extraConfig: NginxServer.slowLocation(serving: sandbox.served))
        defer { nginx.stop() }
        let manifest = try sandbox.manifest(base: nginx.baseURL + "slow/")

        let interrupted = try startSlowPull(sandbox, manifest: manifest)
        interrupted.signal(SIGINT)
        let result = try interrupted.wait(timeout: 30)
        #expect(result.status == 130)
        #expect(result.stderr.contains("1 interrupted"))
        #expect(result.stderr.contains("Interrupted: partial downloads are kept in .assetsync/partial/ and resume on the next pull.\n"))
        #expect(try sandbox.cached()["big/video.bin"] == nil)
        #expect(sandbox.partialNames().contains { $0.hasSuffix(".resume") })

        let resumed = try AssetSyncBinary.run(["pull", manifest, "--dest", sandbox.dest])
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(try sandbox.cached() == sandbox.expected)
        #expect(nginx.waitForAccessLog(count: 3).contains { $0.status == 206 && $0.path == "/slow/big/video.bin" })
    }

    @Test func httpsIsAlwaysVerifiedSpeaksHTTP2AndReusesConnections() throws {
        let sandbox = try Sandbox(serving: ["a.bin": Self.random(300_000), "b/c.bin": Self.random(200_000), "d.bin": Self.random(1000)])
        let (certificate, key) = try sandbox.makeCertificate()
        let tlsPort = try LoopbackSocket.freePort()
        let nginx = try NginxServer(root: sandbox.served, httpConfig: """
            server {
                listen 127.0.0.1:\(tlsPort) ssl http2;
                ssl_certificate \(certificate);
                ssl_certificate_key \(key);
                root \(sandbox.served.path);
            }
            """)
        defer { nginx.stop() }
        let manifest = try sandbox.manifest(base: "https://127.0.0.1:\(tlsPort)/")

        let untrusted = try AssetSyncBinary.run(["pull", manifest, "--dest", sandbox.dest])
        #expect(untrusted.status == 1)
        #expect(untrusted.stderr.contains("failed   a.bin: SSL certificate problem: self-signed certificate (https://127.0.0.1:\(tlsPort)/a.bin)\n"))
        #expect(try sandbox.cached().isEmpty)

        let trusted = try AssetSyncBinary.run(["pull", manifest, "--dest", sandbox.dest, "--cacert", certificate, "--jobs", "1"])
        #expect(trusted.status == 0, "\(trusted.stderr)")
        #expect(try sandbox.cached() == sandbox.expected)
        let log = nginx.waitForAccessLog(count: 3)
        #expect(log.count == 3)
        #expect(log.allSatisfy { $0.request.hasSuffix("HTTP/2.0") })
        #expect(Set(log.map(\.connection)).count == 1)
    }

    @Test func plainHTTPReusesOneConnectionAcrossFiles() throws {
        let sandbox = try Sandbox(serving: ["a.bin": Self.random(100_000), "b.bin": Self.random(100_000), "c/d.bin": Self.random(10)])
        let nginx = try NginxServer(root: sandbox.served)
        defer { nginx.stop() }
        let result = try AssetSyncBinary.run(["pull", try sandbox.manifest(base: nginx.baseURL), "--dest", sandbox.dest, "--jobs", "1"])
        #expect(result.status == 0, "\(result.stderr)")
        let log = nginx.waitForAccessLog(count: 3)
        #expect(Set(log.map(\.connection)).count == 1)
        #expect(log.map(\.connectionRequests).sorted() == [1, 2, 3])
    }

    /// A file whose size, mtime and inode match its state record is current without being read:
    /// even a corruption that kept them is not seen, until `--verify` reads everything again.
    @Test func stateRecordsSkipReadingAndVerifyReadsAgain() throws {
        let sandbox = try Sandbox(serving: ["a.bin": Self.random(100_000), "b.bin": Self.random(50_000)])
        let nginx = try NginxServer(root: sandbox.served)
        defer { nginx.stop() }
        let manifest = try sandbox.manifest(base: nginx.baseURL)
        #expect(try AssetSyncBinary.run(["pull", manifest, "--dest", sandbox.dest]).status == 0)
        let state = try String(contentsOfFile: sandbox.dest + "/.assetsync/state", encoding: .utf8)
        #expect(state.hasPrefix("assetsync-state 1\n"))
        #expect(state.contains(" a.bin\n") && state.contains(" b.bin\n"))

        // Corrupt a.bin in place, keeping its size, inode and mtime.
        let path = sandbox.dest + "/a.bin"
        var before = stat()
        stat(path, &before)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.seek(toOffset: 10)
        try handle.write(contentsOf: Data([0xFF, 0x00, 0xFF]))
        try handle.close()
        var times = [before.st_atim, before.st_mtim]
        utimensat(AT_FDCWD, path, &times, 0)

        nginx.clearAccessLog()
        let noOp = try AssetSyncBinary.run(["pull", manifest, "--dest", sandbox.dest])
        #expect(noOp.status == 0)
        #expect(noOp.stderr.hasPrefix("0 new, 0 updated, 2 current, 0 failed"))
        let verified = try AssetSyncBinary.run(["pull", manifest, "--dest", sandbox.dest, "--verify"])
        #expect(verified.status == 0, "\(verified.stderr)")
        #expect(verified.stderr.contains("updated  a.bin (97.7 KiB)\n"))
        #expect(try sandbox.cached() == sandbox.expected)
        #expect(nginx.waitForAccessLog(count: 1).map(\.path) == ["/a.bin"])
    }
}
