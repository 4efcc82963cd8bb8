import Foundation
import Glibc
import Testing
import TestSupport

/// Metalinks against real servers: `manifest --format meta4` writes one that pull, plan and verify
/// read; a file failing its SHA-256 never reaches its final path (curl's CVE-2021-22922); credentials
/// given for the Metalink's host never reach its mirrors (CVE-2021-22923); a `.minisig` beside it
/// is checked as for any manifest.
@Suite struct MetalinkPullTests {
    /// The SHA-256 of `data` as coreutils' sha256sum gives it: an implementation other than assetsync's.
    static func sha256Hex(_ data: Data) throws -> String {
        let scratch = try TemporaryDirectory()
        let path = try scratch.write("bytes", data)
        return String(try AssetSyncBinary.runTool("/usr/bin/sha256sum", [path]).stdout.prefix(64))
    }

    /// A Metalink 4 of `files`: each name, its bytes and its urls in order (priority 1 first).
    static func metalink(_ files: [(name: String, data: Data, urls: [String])]) throws -> String {
        var text = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<metalink xmlns=\"urn:ietf:params:xml:ns:metalink\">\n"
        for file in files {
            text += "  <file name=\"\(file.name)\">\n    <size>\(file.data.count)</size>\n"
            text += "    <hash type=\"sha-256\">\(try sha256Hex(file.data))</hash>\n"
            for (index, url) in file.urls.enumerated() { text += "    <url priority=\"\(index + 1)\">\(url)</url>\n" }
            text += "  </file>\n"
        }
        return text + "</metalink>\n"
    }

    /// Files of three kinds of pull (empty, held in memory, streamed to a partial) served by nginx, and the
    /// Metalink `assetsync manifest --format meta4` wrote for them.
    struct Published {
        let sandbox: Sandbox
        let nginx: NginxServer
        let metalink: String

        init() throws {
            sandbox = try Sandbox(serving: [
                "empty": Data(), "set/small.bin": PullNginxTests.random(1000), "set/sub dir/large.bin": PullNginxTests.random(700_000),
            ])
            nginx = try NginxServer(root: sandbox.served)
            metalink = try sandbox.writeManifest([], name: "m.meta4")
            let made = try AssetSyncBinary.run(
                ["manifest", sandbox.served.path, "--base", nginx.baseURL, "--format", "meta4", "--output", metalink])
            try #require(made.status == 0, "\(made.stderr)")
        }
    }

    @Test func aMetalinkThatManifestWroteIsPlannedPulledAndVerifiedByItsSHA256() throws {
        let published = try Published()
        defer { published.nginx.stop() }
        let sandbox = published.sandbox
        defer { sandbox.checkInvariants() }
        let text = try String(contentsOfFile: published.metalink, encoding: .utf8)
        let large = try Self.sha256Hex(sandbox.expected["set/sub dir/large.bin"]!)
        #expect(text.contains("""
              <file name="set/sub dir/large.bin">
                <size>700000</size>
                <hash type="sha-256">\(large)</hash>
                <url priority="1">\(published.nginx.baseURL)set/sub%20dir/large.bin</url>
              </file>
            """), "\(text)")
        #expect(!text.contains("crc32"))

        let planned = try AssetSyncBinary.run(["plan", published.metalink, "--dest", sandbox.dest])
        #expect(planned.status == 0 && planned.stdout.contains("3 files in the manifest: 3 new"), "\(planned.stdout)")
        let pulled = try AssetSyncBinary.run(["pull", published.metalink, "--dest", sandbox.dest])
        #expect(pulled.status == 0, "\(pulled.stderr)")
        #expect(!pulled.stderr.contains("Warning"), "nothing is left out of a Metalink assetsync wrote")
        #expect(try sandbox.cached() == sandbox.expected)
        let state = try String(contentsOfFile: sandbox.dest + "/.assetsync/state", encoding: .utf8)
        #expect(state.contains("-:\(large) 700000 "), "proven by the SHA-256 alone: \(state)")
        #expect(try AssetSyncBinary.run(["verify", published.metalink, "--dest", sandbox.dest]).status == 0)

        // Bytes changed behind assetsync's back keep size and mtime: verify reads and refuses them, pull repairs them.
        let path = sandbox.dest + "/set/small.bin"
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        bytes[0] ^= 0xFF
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.write(contentsOf: bytes)
        try handle.close()
        let verified = try AssetSyncBinary.run(["verify", published.metalink, "--dest", sandbox.dest])
        #expect(verified.status == 1 && verified.stderr.contains("corrupt  set/small.bin: SHA-256 is "), "\(verified.stderr)")
        #expect(try AssetSyncBinary.run(["pull", published.metalink, "--dest", sandbox.dest, "--verify"]).status == 0)
        #expect(try sandbox.cached() == sandbox.expected)
    }

    @Test func whatAMetalinkLeavesOutIsToldOnceAWarning() throws {
        let sandbox = try Sandbox(serving: ["a.bin": PullNginxTests.random(3000), "b.bin": PullNginxTests.random(4000)])
        let nginx = try NginxServer(root: sandbox.served)
        defer { nginx.stop() }
        var text = try Self.metalink(["a.bin", "b.bin"].map { ($0, sandbox.expected[$0]!, ["ftp://127.0.0.1/\($0)", nginx.url($0)]) })
        text = text.replacingOccurrences(
            of: "</hash>\n", with: "</hash>\n    <pieces length=\"1024\" type=\"sha-1\"><hash>00</hash></pieces>\n")
        let path = sandbox.root.path + "/m.meta4"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        for command in ["pull", "verify", "plan"] {
            let result = try AssetSyncBinary.run([command, path, "--dest", sandbox.dest])
            #expect(result.status == 0, "\(command): \(result.stderr)")
            #expect(result.stderrLines(startingWith: "Warning: ") == [
                "Warning: a Metalink's <pieces> are not used: each file is proven whole by its SHA-256.",
                "Warning: a Metalink's urls other than http and https (ftp, rsync, BitTorrent) are left out.",
            ], "\(command): \(result.stderr)")
        }
        #expect(try sandbox.cached() == sandbox.expected)
    }

    /// A Metalink's files are proven by their SHA-256 alone, and found by it too: a file renamed in
    /// the next Metalink is copied from where the cache holds it, not downloaded again.
    @Test func aFileRenamedInTheNextMetalinkIsCopiedNotDownloaded() throws {
        let data = PullNginxTests.random(300_000)
        let sandbox = try Sandbox(serving: ["old/a.bin": data])
        try sandbox.writeServed("new/b.bin", data)
        let nginx = try NginxServer(root: sandbox.served)
        defer { nginx.stop() }
        let first = sandbox.root.path + "/first.meta4"
        try Self.metalink([("old/a.bin", data, [nginx.url("old/a.bin")])]).write(toFile: first, atomically: true, encoding: .utf8)
        #expect(try AssetSyncBinary.run(["pull", first, "--dest", sandbox.dest]).status == 0)
        let second = sandbox.root.path + "/second.meta4"
        try Self.metalink([("new/b.bin", data, [nginx.url("new/b.bin")])]).write(toFile: second, atomically: true, encoding: .utf8)
        nginx.clearAccessLog()
        let planned = try AssetSyncBinary.run(["plan", second, "--dest", sandbox.dest])
        #expect(planned.stdout.contains("may be copied from old/a.bin"), "\(planned.stdout)")
        let pulled = try AssetSyncBinary.run(["pull", second, "--dest", sandbox.dest])
        #expect(pulled.status == 0, "\(pulled.stderr)")
        #expect(sandbox.finalContent("new/b.bin") == data)
        #expect(nginx.settledAccessLog().isEmpty, "\(nginx.settledAccessLog().map(\.raw))")
    }

    /// curl's CVE-2021-22922 left a file that failed its Metalink hash on disk, under its name.
    @Test(arguments: [5000, 2_000_000])
    func aFileFailingItsSHA256NeverReachesItsFinalPath(size: Int) throws {
        let server = try FaultServer()
        defer { server.stop() }
        let sandbox = try Sandbox()
        let good = PullNginxTests.random(size)
        let evil = PullNginxTests.random(size)
        server.route("/a.bin", .serve(.data(evil)))
        server.route("/mirror/a.bin", .serve(.data(evil)))
        let path = sandbox.root.path + "/m.meta4"
        try Self.metalink([("a.bin", good, [server.url("a.bin"), server.url("mirror/a.bin")])]).write(toFile: path, atomically: true, encoding: .utf8)
        try FileManager.default.createDirectory(atPath: sandbox.dest, withIntermediateDirectories: true)
        let before = Data("the version before".utf8)
        try before.write(to: URL(fileURLWithPath: sandbox.dest + "/a.bin"))

        let result = try AssetSyncBinary.run(["pull", path, "--dest", sandbox.dest, "--retries", "0"])
        #expect(result.status == 1, "\(result.stderr)")
        let reason = "SHA-256 is \(try Self.sha256Hex(evil)), expected \(try Self.sha256Hex(good))"
        #expect(result.stderr.contains("""
            failed   a.bin: no source could serve it:
                     \(server.url("a.bin")): \(reason)
                     \(server.url("mirror/a.bin")): \(reason) after a fresh download
            """), "\(result.stderr)")
        #expect(server.requests(to: "/a.bin").count >= 1 && server.requests(to: "/mirror/a.bin").count >= 1, "every source was tried")
        #expect(sandbox.finalFiles().files == ["a.bin": before], "the final path keeps its previous content, nothing else appears")
        #expect(sandbox.partialNames().isEmpty, "the refused bytes are not kept either")
    }

    /// curl's CVE-2021-22923 sent the credentials given for a Metalink's host to every mirror it listed.
    @Test func credentialsForTheMetalinksHostNeverReachItsMirrors() throws {
        let home = try FaultServer()
        let mirror = try FaultServer()
        defer {
            home.stop()
            mirror.stop()
        }
        let a = PullNginxTests.random(6000)
        let b = PullNginxTests.random(7000)
        // a.bin: the home's copy is missing, so its mirror serves it; b.bin is only on the mirror.
        mirror.route("/a.bin", .serve(.data(a)))
        mirror.route("/b.bin", .serve(.data(b)))
        let text = try Self.metalink([("a.bin", a, [home.url("a.bin"), mirror.url("a.bin")]), ("b.bin", b, [mirror.url("b.bin")])])
        home.route("/m.meta4", .serve(.data(Data(text.utf8))))
        let dest = try TemporaryDirectory()
        let result = try AssetSyncBinary.run(
            ["pull", home.url("m.meta4"), "--dest", dest.path, "--header", PullTransferSafeguardTests.token],
            environment: Sandbox.environment([:]))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try Data(contentsOf: dest.url.appendingPathComponent("a.bin")) == a)
        #expect(try Data(contentsOf: dest.url.appendingPathComponent("b.bin")) == b)
        #expect(home.requests.map(\.path).sorted() == ["/a.bin", "/m.meta4"])
        #expect(home.requests.allSatisfy { $0.authorization == "Bearer secret" }, "the host the user chose gets them")
        #expect(mirror.requests.map(\.path).sorted() == ["/a.bin", "/b.bin"])
        #expect(mirror.requests.allSatisfy { $0.authorization == nil }, "a mirror got the credentials: \(mirror.requests.map(\.headers))")

        // netrc names a host, not a port: its entry for 127.0.0.1 still goes to the Metalink's origin alone.
        let netrcHome = try TemporaryDirectory()
        try "machine 127.0.0.1 login user password pw\n".write(toFile: netrcHome.path + "/.netrc", atomically: true, encoding: .utf8)
        chmod(netrcHome.path + "/.netrc", 0o600)
        let netrcDest = try TemporaryDirectory()
        let netrc = try AssetSyncBinary.run(
            ["pull", home.url("m.meta4"), "--dest", netrcDest.path, "--netrc"], environment: Sandbox.environment(["HOME": netrcHome.path]))
        #expect(netrc.status == 0, "\(netrc.stderr)")
        #expect(home.requests.count == 4 && home.requests.suffix(2).allSatisfy { $0.authorization == "Basic dXNlcjpwdw==" })
        #expect(mirror.requests.count == 4 && mirror.requests.allSatisfy { $0.authorization == nil })
    }

    @Test(.enabled(if: SignedManifestTests.hasMinisign, "minisign is not installed (make deps installs it)"))
    func aSignatureBesideAMetalinkIsCheckedAsForAnyManifest() throws {
        let published = try Published()
        defer { published.nginx.stop() }
        let sandbox = published.sandbox
        try SignedManifestTests.sign(published.metalink, version: 4)
        let checked = try AssetSyncBinary.runTool(
            SignedManifestTests.minisign, ["-V", "-m", published.metalink, "-p", SignedManifestTests.fixture("signing-test.pub")])
        #expect(checked.status == 0, "minisign itself accepts it: \(checked.stderr)")
        let pulled = try AssetSyncBinary.run(["pull", published.metalink, "--dest", sandbox.dest] + SignedManifestTests.trusted)
        #expect(pulled.status == 0, "\(pulled.stderr)")
        #expect(try sandbox.cached() == sandbox.expected)

        var bytes = try Data(contentsOf: URL(fileURLWithPath: published.metalink))
        let index = try #require(bytes.firstRange(of: Data("<size>1000<".utf8))).lowerBound + 6
        bytes[index] = UInt8(ascii: "2")
        try bytes.write(to: URL(fileURLWithPath: published.metalink))
        published.nginx.clearAccessLog()
        let refused = try AssetSyncBinary.run(["pull", published.metalink, "--dest", sandbox.root.path + "/other"] + SignedManifestTests.trusted)
        #expect(refused.status == 5, "\(refused.stderr)")
        #expect(refused.stderr.contains("does not match its bytes"), "\(refused.stderr)")
        #expect(published.nginx.settledAccessLog().isEmpty)
    }

    static let aria2c = "/usr/bin/aria2c"

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: aria2c), "aria2c is not installed (make deps installs aria2)"))
    func aria2cDownloadsAndChecksAMetalinkAssetsyncWrote() throws {
        let published = try Published()
        defer { published.nginx.stop() }
        let sandbox = published.sandbox
        let out = sandbox.root.path + "/aria2"
        let result = try AssetSyncBinary.runTool(
            Self.aria2c,
            ["--metalink-file=" + published.metalink, "--dir=" + out, "--check-integrity=true", "--allow-overwrite=true",
             "--console-log-level=warn", "--summary-interval=0", "--no-conf=true"])
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(sandbox.finalFiles(in: out).files == sandbox.expected, "aria2c got every file, byte for byte")

        // And the other way round: bytes aria2c then finds wrong fail its check of the Metalink's hash.
        let path = out + "/set/small.bin"
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        bytes[0] ^= 0xFF
        try bytes.write(to: URL(fileURLWithPath: path))
        let checked = try AssetSyncBinary.runTool(
            Self.aria2c,
            ["--metalink-file=" + published.metalink, "--dir=" + out, "--check-integrity=true", "--console-log-level=warn",
             "--summary-interval=0", "--no-conf=true"])
        #expect(checked.status == 0, "\(checked.stdout)\(checked.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == sandbox.expected["set/small.bin"], "aria2c repaired it by the hash")
    }
}
