import Foundation
import Glibc
import Testing
import TestSupport

/// An optional `sha256` per entry against nginx: `manifest --sha256` writes it,
/// a pull proves every file by it and records it, `verify` uses it, and bytes crafted to have a
/// file's CRC-32 (easy: `CRC32Collision`) are refused wherever they come from.
@Suite struct StrongHashTests {
    static let size = 5000

    /// The original bytes served by nginx (`good/a.bin`), and bytes of one's choosing forged to the
    /// same CRC-32, served by a hostile mirror (the fault server, at `evilURL`).
    struct Collision {
        let sandbox: Sandbox
        let nginx: NginxServer
        let mirror: FaultServer
        let good: Data
        let evil: Data
        var evilURL: String { mirror.baseURL + "a.bin" }

        init(size: Int = StrongHashTests.size) throws {
            sandbox = try Sandbox()
            good = PullNginxTests.random(size)
            let forged = CRC32Collision.matching(CRC32Collision.crc([UInt8](good)), forged: [UInt8](PullNginxTests.random(size)))
            evil = Data(forged)
            try sandbox.writeServed("good/a.bin", good)
            nginx = try NginxServer(root: sandbox.served)
            mirror = try FaultServer()
            mirror.route("/a.bin", .serve(.data(evil)))
        }

        func stop() {
            nginx.stop()
            mirror.stop()
        }

        /// The SHA-256 of the good bytes, as `assetsync manifest --sha256` writes it.
        func goodSHA256() throws -> String {
            let result = try AssetSyncBinary.run(["manifest", sandbox.served.path + "/good", "--base", nginx.baseURL, "--sha256", "--format", "json"])
            let manifest = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as! [String: Any]
            return ((manifest["files"] as! [[String: Any]])[0]["sha256"] as! String)
        }

        func manifest(_ name: String, url: String, mirrors: [String] = [], sha256: String?) throws -> String {
            try sandbox.writeManifest(
                [TestManifest.File(path: "a.bin", size: good.count, crc32: TestManifest.crc32Hex(good), url: url, mirrors: mirrors, sha256: sha256)],
                name: name)
        }

        /// A manifest whose one entry gives the SHA-256 and no CRC-32.
        func shaOnlyManifest(_ name: String, url: String, mirrors: [String], sha256: String) throws -> String {
            let entry: [String: Any] = ["path": "a.bin", "size": good.count, "url": url, "mirrors": mirrors, "sha256": sha256]
            let path = sandbox.root.path + "/" + name
            try JSONSerialization.data(withJSONObject: ["version": 1, "files": [entry]]).write(to: URL(fileURLWithPath: path))
            return path
        }
    }

    @Test func manifestWritesTheSHA256AndAPullProvesAndRecordsIt() throws {
        let sandbox = try Sandbox()
        var files: [String: Data] = [:]
        for index in 0..<3 {
            files["set/f\(index).bin"] = PullNginxTests.random(1000 + index * 70_000)
            try sandbox.writeServed("set/f\(index).bin", files["set/f\(index).bin"]!)
        }
        let nginx = try NginxServer(root: sandbox.served)
        defer { nginx.stop() }
        let manifest = sandbox.root.path + "/m.xml"
        let made = try AssetSyncBinary.run(["manifest", sandbox.served.path, "--base", nginx.baseURL, "--sha256", "--output", manifest])
        #expect(made.status == 0, "\(made.stderr)")
        let text = try String(contentsOfFile: manifest, encoding: .utf8)
        // Against an independent implementation: coreutils' sha256sum.
        let expected = String(try AssetSyncBinary.runTool("/usr/bin/sha256sum", [sandbox.served.path + "/set/f1.bin"]).stdout.prefix(64))
        #expect(text.contains("path=\"set/f1.bin\" size=\"71000\" crc32=\"\(TestManifest.crc32Hex(files["set/f1.bin"]!))\" sha256=\"\(expected)\""), "\(text)")
        let pulled = try AssetSyncBinary.run(["pull", manifest, "--dest", sandbox.dest])
        #expect(pulled.status == 0, "\(pulled.stderr)")
        #expect(try sandbox.cached() == files)
        let state = try String(contentsOfFile: sandbox.dest + "/.assetsync/state", encoding: .utf8)
        #expect(state.contains(":" + expected + " 71000 "), "\(state)")
        #expect(try AssetSyncBinary.run(["verify", manifest, "--dest", sandbox.dest]).status == 0)
        // Current from the state index: nothing is fetched again.
        nginx.clearAccessLog()
        #expect(try AssetSyncBinary.run(["pull", manifest, "--dest", sandbox.dest]).status == 0)
        #expect(nginx.settledAccessLog().isEmpty)
    }

    /// Each way a download reaches its commit: held in memory (a small file), streamed to a partial,
    /// and in segments written in parallel (`ASSETSYNC_SEGMENT_THRESHOLD` makes 4 MiB four of them).
    @Test(arguments: [(5000, [:]), (2_000_000, [:]), (4 << 20, ["ASSETSYNC_SEGMENT_THRESHOLD": "\(1 << 20)", "ASSETSYNC_SEGMENTS": "4"])])
    func bytesWithTheCRC32ButNotTheSHA256AreRefusedFromAnySource(size: Int, environment: [String: String]) throws {
        let collision = try Collision(size: size)
        defer { collision.stop() }
        let base = collision.nginx.baseURL
        #expect(CRC32Collision.crc([UInt8](collision.evil)) == CRC32Collision.crc([UInt8](collision.good)) && collision.evil != collision.good)
        // The control: with a CRC-32 alone, the forged bytes are taken. The collision is real.
        let crcOnly = try collision.manifest("crc-only.json", url: collision.evilURL, sha256: nil)
        let fooled = try AssetSyncBinary.run(["pull", crcOnly, "--dest", collision.sandbox.root.path + "/fooled"], environment: environment)
        #expect(fooled.status == 0, "\(fooled.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: collision.sandbox.root.path + "/fooled/a.bin")) == collision.evil)

        let sha256 = try collision.goodSHA256()
        // The primary is missing and the one mirror serves the forged bytes: nothing is committed.
        let mirrorEvil = try collision.manifest("mirror-evil.json", url: base + "missing/a.bin", mirrors: [collision.evilURL], sha256: sha256)
        let refused = try AssetSyncBinary.run(["pull", mirrorEvil, "--dest", collision.sandbox.dest, "--retries", "0"], environment: environment)
        #expect(refused.status == 1, "\(refused.stderr)")
        #expect(refused.stderr.contains("SHA-256 is ") && refused.stderr.contains("expected \(sha256) (the CRC-32 matched)"), "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: collision.sandbox.dest + "/a.bin"))
        // The forged bytes first, then a mirror with the real ones: those are committed.
        let thenGood = try collision.manifest("then-good.json", url: collision.evilURL, mirrors: [base + "good/a.bin"], sha256: sha256)
        let repaired = try AssetSyncBinary.run(["pull", thenGood, "--dest", collision.sandbox.dest, "--retries", "0"], environment: environment)
        #expect(repaired.status == 0, "\(repaired.stderr)")
        #expect(collision.sandbox.finalContent("a.bin") == collision.good)
    }

    @Test func verifyAndPullCatchACollidingFileInTheCache() throws {
        let collision = try Collision()
        defer { collision.stop() }
        let base = collision.nginx.baseURL
        let dest = collision.sandbox.dest
        // Pulled with a CRC-32 alone, then with the SHA-256: the record without it does not vouch,
        // so the file is read and proven (not fetched again), and its record gains the SHA-256.
        let crcOnly = try collision.manifest("crc-only.json", url: base + "good/a.bin", sha256: nil)
        #expect(try AssetSyncBinary.run(["pull", crcOnly, "--dest", dest]).status == 0)
        let sha256 = try collision.goodSHA256()
        let strong = try collision.manifest("strong.json", url: base + "good/a.bin", sha256: sha256)
        collision.nginx.clearAccessLog()
        let proven = try AssetSyncBinary.run(["pull", strong, "--dest", dest, "--json"])
        #expect(proven.status == 0, "\(proven.stderr)")
        #expect(collision.nginx.settledAccessLog().isEmpty, "the file on disk was proven by reading it")
        #expect(try String(contentsOfFile: dest + "/.assetsync/state", encoding: .utf8).contains(":" + sha256 + " "))

        try collision.evil.write(to: URL(fileURLWithPath: dest + "/a.bin"))
        let verified = try AssetSyncBinary.run(["verify", strong, "--dest", dest])
        #expect(verified.status == 1)
        #expect(verified.stderr.contains("corrupt  a.bin: SHA-256 is ") && verified.stderr.contains(", expected \(sha256)"), "\(verified.stderr)")
        #expect(try AssetSyncBinary.run(["verify", crcOnly, "--dest", dest]).status == 0, "CRC-32 alone cannot tell")
        let pulled = try AssetSyncBinary.run(["pull", strong, "--dest", dest])
        #expect(pulled.status == 0, "\(pulled.stderr)")
        #expect(collision.sandbox.finalContent("a.bin") == collision.good)
    }

    @Test func anEntryWithASHA256AndNoCRC32IsProvenAndRecordedByItAlone() throws {
        let collision = try Collision()
        defer { collision.stop() }
        let base = collision.nginx.baseURL
        let dest = collision.sandbox.dest
        let sha256 = try collision.goodSHA256()
        // The forged bytes first: without a CRC-32 to catch them, the SHA-256 refuses them; the mirror's are committed.
        let shaOnly = try collision.shaOnlyManifest("sha-only.json", url: collision.evilURL, mirrors: [base + "good/a.bin"], sha256: sha256)
        let pulled = try AssetSyncBinary.run(["pull", shaOnly, "--dest", dest, "--retries", "0"])
        #expect(pulled.status == 0, "\(pulled.stderr)")
        #expect(collision.sandbox.finalContent("a.bin") == collision.good)
        #expect(try String(contentsOfFile: dest + "/.assetsync/state", encoding: .utf8).contains("-:" + sha256 + " "), "only the SHA-256 was proven")
        #expect(try AssetSyncBinary.run(["verify", shaOnly, "--dest", dest]).status == 0)
        collision.nginx.clearAccessLog()
        #expect(try AssetSyncBinary.run(["pull", shaOnly, "--dest", dest]).status == 0)
        #expect(collision.nginx.settledAccessLog().isEmpty, "current from its record")
        // A manifest that gives the CRC-32 too is not vouched for by that record: the file is read, not fetched.
        let both = try collision.manifest("both.json", url: base + "good/a.bin", sha256: sha256)
        let proven = try AssetSyncBinary.run(["pull", both, "--dest", dest])
        #expect(proven.status == 0, "\(proven.stderr)")
        #expect(collision.nginx.settledAccessLog().isEmpty)
        let state = try String(contentsOfFile: dest + "/.assetsync/state", encoding: .utf8)
        #expect(state.contains(TestManifest.crc32Hex(collision.good) + ":" + sha256 + " "), "\(state)")
        try collision.evil.write(to: URL(fileURLWithPath: dest + "/a.bin"))
        let verified = try AssetSyncBinary.run(["verify", shaOnly, "--dest", dest])
        #expect(verified.status == 1 && verified.stderr.contains("corrupt  a.bin: SHA-256 is "), "\(verified.stderr)")
    }

    /// The SHA-256 of zero bytes, as coreutils' sha256sum gives it for an empty file.
    static let emptySHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

    @Test func anEmptyEntryIsProvenByTheSHA256OfZeroBytesWhetherMadeOrAlreadyThere() throws {
        let sandbox = try Sandbox()
        let zeros = String(repeating: "0", count: 64)
        // No request is made for an empty file: the base is a port nothing listens on.
        func manifest(_ name: String, bad sha256: String) throws -> String {
            try sandbox.writeManifest([
                TestManifest.File(path: "bad", size: 0, crc32: "00000000", sha256: sha256),
                TestManifest.File(path: "good", size: 0, crc32: "00000000", sha256: Self.emptySHA256),
            ], base: "http://127.0.0.1:9/", name: name)
        }
        let wrong = try manifest("wrong.json", bad: zeros)
        let failure = "failed   bad: SHA-256 is \(Self.emptySHA256), expected \(zeros) (the CRC-32 matched)\n"
        let refused = try AssetSyncBinary.run(["pull", wrong, "--dest", sandbox.dest])
        #expect(refused.status == 1, "\(refused.stderr)")
        #expect(refused.stderr.contains(failure), "\(refused.stderr)")
        #expect(refused.stderr.contains("new      good (0 B)\n"), "\(refused.stderr)")
        #expect(Sandbox.kind(sandbox.dest + "/bad") == 0, "nothing is made for an entry whose SHA-256 is not that of zero bytes")
        #expect(sandbox.finalContent("good") == Data())
        let state = try String(contentsOfFile: sandbox.dest + "/.assetsync/state", encoding: .utf8)
        #expect(state.contains("00000000:\(Self.emptySHA256) 0 ") && !state.contains(zeros), "\(state)")
        // Every later run refuses it again, never "updated".
        let again = try AssetSyncBinary.run(["pull", wrong, "--dest", sandbox.dest])
        #expect(again.status == 1 && again.stderr.contains(failure), "\(again.stderr)")
        #expect(Sandbox.kind(sandbox.dest + "/bad") == 0)

        // An empty file already there is proven the same way: refused, and left as it was.
        #expect(FileManager.default.createFile(atPath: sandbox.dest + "/bad", contents: Data()))
        let present = try AssetSyncBinary.run(["pull", wrong, "--dest", sandbox.dest])
        #expect(present.status == 1 && present.stderr.contains(failure), "\(present.stderr)")
        #expect(sandbox.finalContent("bad") == Data())
        let verified = try AssetSyncBinary.run(["verify", wrong, "--dest", sandbox.dest])
        #expect(verified.status == 1)
        #expect(verified.stderr.contains("corrupt  bad: SHA-256 is \(Self.emptySHA256), expected \(zeros)"), "\(verified.stderr)")

        // With the right SHA-256 the file there is current, and one made afresh is committed.
        let right = try manifest("right.json", bad: Self.emptySHA256)
        let proven = try AssetSyncBinary.run(["pull", right, "--dest", sandbox.dest])
        #expect(proven.status == 0, "\(proven.stderr)")
        #expect(proven.stderr.hasPrefix("0 new, 0 updated, 2 current, 0 failed;"), "\(proven.stderr)")
        #expect(try AssetSyncBinary.run(["verify", right, "--dest", sandbox.dest]).status == 0)
        let fresh = try AssetSyncBinary.run(["pull", right, "--dest", sandbox.root.path + "/fresh"])
        #expect(fresh.status == 0 && fresh.stderr.contains("new      bad (0 B)\n"), "\(fresh.stderr)")
        #expect(sandbox.finalFiles(in: sandbox.root.path + "/fresh").files == ["bad": Data(), "good": Data()])
    }
}
