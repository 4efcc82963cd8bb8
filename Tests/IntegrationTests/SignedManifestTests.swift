import Foundation
import Glibc
import Testing
import TestSupport

/// `--trusted-key`: a manifest is pulled only when its bytes carry a minisign signature by a trusted
/// key that has not expired and is not older than the version DEST accepted; any other is refused
/// with exit status 5 before a request for a file or a change to DEST. Keys: Fixtures/signing-*.
@Suite struct SignedManifestTests {
    static let minisign = "/usr/bin/minisign"
    static let hasMinisign = FileManager.default.isExecutableFile(atPath: minisign)

    static func fixture(_ name: String) -> String {
        AssetSyncBinary.packageRoot.appendingPathComponent("Tests/IntegrationTests/Fixtures/" + name).path
    }

    static let trusted = ["--trusted-key", fixture("signing-test.pub")]

    /// Signs `manifest` with a fixture key, as a publisher would.
    static func sign(_ manifest: String, version: Int, key: String = "signing-test.key", options: [String] = []) throws {
        let result = try AssetSyncBinary.run(["sign", manifest, "--key", fixture(key), "--version", "\(version)"] + options)
        try #require(result.status == 0, "\(result.stderr)")
    }

    /// Signs `manifest` as version 1 and keeps it and its signature, then serves one more file and
    /// signs the new manifest as version 2. Returns what puts version 1 back: a replay.
    static func signTwoVersions(_ sandbox: Sandbox, _ manifest: String) throws -> () throws -> Void {
        try sign(manifest, version: 1)
        let old = try Data(contentsOf: URL(fileURLWithPath: manifest))
        let oldSignature = try Data(contentsOf: URL(fileURLWithPath: manifest + ".minisig"))
        try sandbox.serve("b.bin", PullNginxTests.random(100))
        try sandbox.manifest()
        try sign(manifest, version: 2)
        return {
            try old.write(to: URL(fileURLWithPath: manifest))
            try oldSignature.write(to: URL(fileURLWithPath: manifest + ".minisig"))
        }
    }

    /// A sandbox serving one file, with its manifest written for `nginx`.
    static func served(by start: (URL) throws -> NginxServer) throws -> (Sandbox, NginxServer, String) {
        let sandbox = try Sandbox(serving: ["a.bin": PullNginxTests.random(5000)])
        let nginx = try start(sandbox.served)
        return (sandbox, nginx, try sandbox.manifest(base: nginx.baseURL))
    }

    /// The one `untrusted` event of a refused run's `--json` output.
    static func event(_ result: RunResult) throws -> [String: Any] {
        let line = try #require(result.stdout.split(separator: "\n").first)
        return try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }

    enum Tampering: String, CaseIterable {
        case tamperedByte, unknownKey, expired, swappedSignature, missingSignature, oversizedSignature
    }

    @Test func aSignedManifestIsPulledAndItsVersionRecorded() throws {
        let (sandbox, nginx, manifest) = try Self.served { try NginxServer(root: $0) }
        defer { nginx.stop() }
        try Self.sign(manifest, version: 5, options: ["--expires", "30d"])
        let result = try AssetSyncBinary.run(["pull", manifest, "--dest", sandbox.dest] + Self.trusted)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try sandbox.cached() == sandbox.expected)
        let record = try String(contentsOfFile: sandbox.dest + "/.assetsync/accepted-version", encoding: .utf8)
        #expect(record.contains("version 5\n") && record.contains("key AD216FE6C785E49F\n"))
    }

    @Test(arguments: Tampering.allCases)
    func anUntrustedManifestIsRefusedBeforeAnythingHappens(_ tampering: Tampering) throws {
        let (sandbox, nginx, manifest) = try Self.served { try NginxServer(root: $0) }
        defer { nginx.stop() }
        let expected: (reason: String, words: String)
        switch tampering {
        case .tamperedByte:
            try Self.sign(manifest, version: 1)
            var bytes = try Data(contentsOf: URL(fileURLWithPath: manifest))
            let index = try #require(bytes.firstIndex(of: UInt8(ascii: "5")))  // in the size 5000
            bytes[index] = UInt8(ascii: "6")
            try bytes.write(to: URL(fileURLWithPath: manifest))
            expected = ("bad_signature", "its signature by key AD216FE6C785E49F does not match its bytes")
        case .unknownKey:
            try Self.sign(manifest, version: 1, key: "signing-other.key")
            expected = ("unknown_key", "it is signed by key BEED6A1494362DA2, which is not one of the trusted keys")
        case .expired:
            try Self.sign(manifest, version: 1, options: ["--expires", "2020-01-01T00:00:00Z"])
            expected = ("expired", "its signature by key AD216FE6C785E49F expired at 2020-01-01T00:00:00Z")
        case .swappedSignature:
            try sandbox.serve("b.bin", PullNginxTests.random(10))
            let other = try sandbox.writeManifest(sandbox.files, base: nginx.baseURL, name: "other.json")
            try Self.sign(other, version: 1)
            try FileManager.default.copyItem(atPath: other + ".minisig", toPath: manifest + ".minisig")
            expected = ("bad_signature", "does not match its bytes")
        case .missingSignature:
            expected = ("missing", "it has no signature")
        case .oversizedSignature:
            try Data(repeating: UInt8(ascii: "A"), count: 20_000).write(to: URL(fileURLWithPath: manifest + ".minisig"))
            expected = ("malformed", "its signature file is not minisign's format: it is larger than 16384 bytes")
        }
        let result = try AssetSyncBinary.run(["pull", manifest, "--dest", sandbox.dest, "--json"] + Self.trusted)
        #expect(result.status == 5, "\(result.stderr)")
        #expect(result.stderr.hasPrefix("Error: the manifest \(manifest) is not trustworthy: "))
        #expect(result.stderr.contains(expected.words), "\(result.stderr)")
        let event = try Self.event(result)
        #expect(event["type"] as? String == "untrusted" && event["reason"] as? String == expected.reason)
        #expect(event["exit_code"] as? Int == 5)
        #expect(nginx.settledAccessLog().isEmpty)
        #expect(!FileManager.default.fileExists(atPath: sandbox.dest), "DEST was created")
        // The same refusal for plan and verify.
        for command in ["plan", "verify"] {
            let other = try AssetSyncBinary.run([command, manifest, "--dest", sandbox.dest] + Self.trusted)
            #expect(other.status == 5 && other.stderr.contains(expected.words), "\(command): \(other.stderr)")
        }
    }

    @Test func anOlderSignedManifestIsARollbackAndAPlanRecordsNothing() throws {
        let (sandbox, nginx, manifest) = try Self.served { try NginxServer(root: $0) }
        defer { nginx.stop() }
        let replayVersion1 = try Self.signTwoVersions(sandbox, manifest)
        #expect(try AssetSyncBinary.run(["pull", manifest, "--dest", sandbox.dest] + Self.trusted).status == 0)

        try replayVersion1()
        nginx.clearAccessLog()
        let replay = try AssetSyncBinary.run(["pull", manifest, "--dest", sandbox.dest, "--delete", "--json"] + Self.trusted)
        #expect(replay.status == 5)
        #expect(replay.stderr.contains("rollback from version 2 to 1: its signature by key AD216FE6C785E49F is valid"), "\(replay.stderr)")
        #expect(try Self.event(replay)["reason"] as? String == "rollback")
        #expect(FileManager.default.fileExists(atPath: sandbox.dest + "/b.bin"), "--delete ran")
        #expect(nginx.settledAccessLog().isEmpty)

        try sandbox.manifest()
        try Self.sign(manifest, version: 3)
        let plan = try AssetSyncBinary.run(["plan", manifest, "--dest", sandbox.dest] + Self.trusted)
        #expect(plan.status == 0, "\(plan.stderr)")
        let record = try String(contentsOfFile: sandbox.dest + "/.assetsync/accepted-version", encoding: .utf8)
        #expect(record.contains("version 2\n"))
    }

    @Test func anAtomicDestKeepsItsAcceptedVersionFromGenerationToGeneration() throws {
        let (sandbox, nginx, manifest) = try Self.served { try NginxServer(root: $0) }
        defer { nginx.stop() }
        let replayVersion1 = try Self.signTwoVersions(sandbox, manifest)
        // Enough generations kept that none is recycled: each new one starts from links alone.
        let first = try AssetSyncBinary.run(["pull", manifest, "--dest", sandbox.dest, "--atomic", "--keep", "5"] + Self.trusted)
        #expect(first.status == 0, "\(first.stderr)")
        // A pull without --trusted-key builds the next generation, which must carry the record along.
        let again = try AssetSyncBinary.run(["pull", manifest, "--dest", sandbox.dest])
        #expect(again.status == 0, "\(again.stderr)")
        try replayVersion1()
        let replay = try AssetSyncBinary.run(["pull", manifest, "--dest", sandbox.dest] + Self.trusted)
        #expect(replay.status == 5 && replay.stderr.contains("rollback from version 2 to 1"), "\(replay.stderr)")
    }

    @Test func aRemoteManifestsSignatureIsFetchedBesideItConditionally() throws {
        let (sandbox, nginx, _) = try Self.served { try NginxServer(root: $0) }
        defer { nginx.stop() }
        let url = nginx.url(Sandbox.manifestName)
        let missing = try AssetSyncBinary.run(["pull", url, "--dest", sandbox.dest] + Self.trusted)
        try sandbox.serveManifest(base: nginx.baseURL)
        let noSignature = try AssetSyncBinary.run(["pull", url, "--dest", sandbox.dest] + Self.trusted)
        #expect(noSignature.status == 5 && noSignature.stderr.contains("it has no signature"), "\(noSignature.stderr)")
        #expect(missing.status == 1, "the manifest itself is missing: \(missing.stderr)")
        try Self.sign(sandbox.served.path + "/" + Sandbox.manifestName, version: 4)
        nginx.clearAccessLog()

        let first = try AssetSyncBinary.run(["pull", url, "--dest", sandbox.dest] + Self.trusted)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(try sandbox.cached() == sandbox.expected)
        #expect(nginx.waitForAccessLog(count: 3).map(\.path) == ["/manifest.json", "/manifest.json.minisig", "/a.bin"])

        nginx.clearAccessLog()
        let second = try AssetSyncBinary.run(["pull", url, "--dest", sandbox.dest] + Self.trusted)
        #expect(second.status == 0, "\(second.stderr)")
        let conditional = nginx.settledAccessLog()
        #expect(conditional.map(\.path) == ["/manifest.json", "/manifest.json.minisig"])
        #expect(conditional.allSatisfy { $0.status == 304 && $0.ifNoneMatch != nil })

        // The signature replaced by one of another key: refused before any file is asked for.
        try Self.sign(sandbox.served.path + "/" + Sandbox.manifestName, version: 5, key: "signing-other.key")
        // A new Last-Modified second as well (nginx's ETag is the time and the size, which did not change).
        try FileManager.default.setAttributes(
            [.modificationDate: Date(timeIntervalSinceNow: 2)], ofItemAtPath: sandbox.served.path + "/" + Sandbox.manifestName + ".minisig")
        nginx.clearAccessLog()
        let swapped = try AssetSyncBinary.run(["verify", url, "--dest", sandbox.dest] + Self.trusted)
        #expect(swapped.status == 5 && swapped.stderr.contains("key BEED6A1494362DA2, which is not one of the trusted keys"), "\(swapped.stderr)")
        #expect(nginx.settledAccessLog().map(\.path) == ["/manifest.json", "/manifest.json.minisig"])
        // Trusting both keys (one file, two keys) accepts it.
        let keys = try TemporaryDirectory()
        let both = try [Self.fixture("signing-test.pub"), Self.fixture("signing-other.pub")]
            .map { try String(contentsOfFile: $0, encoding: .utf8) }.joined(separator: "\n")
        try both.write(toFile: keys.path + "/both.pub", atomically: true, encoding: .utf8)
        let trustingBoth = try AssetSyncBinary.run(["verify", url, "--dest", sandbox.dest, "--trusted-key", keys.path + "/both.pub"])
        #expect(trustingBoth.status == 0, "\(trustingBoth.stderr)")
    }

    /// A FIFO where the signature should be: read without blocking and refused as no signature at once,
    /// rather than waiting for ever for a writer. The run is killed after 30 s, which fails the test.
    @Test func aFIFOAtTheSignaturesNameIsRefusedAtOnceAsNoSignature() throws {
        let (sandbox, nginx, manifest) = try Self.served { try NginxServer(root: $0) }
        defer { nginx.stop() }
        try #require(mkfifo(manifest + ".minisig", 0o600) == 0)
        let result = try AssetSyncBinary.start(["pull", manifest, "--dest", sandbox.dest, "--json"] + Self.trusted).wait(timeout: 30)
        #expect(result.signal == nil, "killed after 30 s: the read of the FIFO blocked")
        #expect(result.status == 5, "\(result.stderr)")
        #expect(
            result.stderr.hasPrefix(
                "Error: the manifest \(manifest) is not trustworthy: it has no signature: \(manifest).minisig is a FIFO (named pipe), "
                    + "not a regular file. No file was downloaded or changed. Put the signature file itself there"),
            "\(result.stderr)")
        #expect(try Self.event(result)["reason"] as? String == "missing")
        #expect(nginx.settledAccessLog().isEmpty)
        #expect(!FileManager.default.fileExists(atPath: sandbox.dest), "DEST was created")
    }

    /// A remote signature is read from its copy under `.assetsync/` like the local one: a FIFO planted
    /// there is replaced by the fetch, never read, and a signature longer than one can be is refused.
    @Test func aRemoteSignaturesCopyIsReadBoundedAndNeverBlocks() throws {
        let (sandbox, nginx, _) = try Self.served { try NginxServer(root: $0) }
        defer { nginx.stop() }
        try sandbox.serveManifest(base: nginx.baseURL)
        let served = sandbox.served.path + "/" + Sandbox.manifestName
        try Self.sign(served, version: 4)
        let url = nginx.url(Sandbox.manifestName)
        #expect(try AssetSyncBinary.run(["pull", url, "--dest", sandbox.dest] + Self.trusted).status == 0)
        let copy = sandbox.dest + "/.assetsync/manifest.minisig"
        try FileManager.default.removeItem(atPath: copy)
        try #require(mkfifo(copy, 0o600) == 0)
        let again = try AssetSyncBinary.start(["pull", url, "--dest", sandbox.dest] + Self.trusted).wait(timeout: 30)
        #expect(again.signal == nil && again.status == 0, "\(again.stderr)")
        try Data(repeating: UInt8(ascii: "A"), count: 20_000).write(to: URL(fileURLWithPath: served + ".minisig"))
        let oversized = try AssetSyncBinary.run(["verify", url, "--dest", sandbox.dest] + Self.trusted)
        #expect(oversized.status == 5, "\(oversized.stderr)")
        #expect(oversized.stderr.contains("its signature file is not minisign's format: it is larger than 16384 bytes"), "\(oversized.stderr)")
        // A server's endless signature is cut off at that limit: nothing near its size is written.
        try Data(repeating: UInt8(ascii: "A"), count: 32 << 20).write(to: URL(fileURLWithPath: served + ".minisig"))
        let huge = try AssetSyncBinary.run(["pull", url, "--dest", sandbox.dest] + Self.trusted)
        #expect(huge.status == 5, "\(huge.stderr)")
        let written = FileManager.default.enumerator(atPath: sandbox.dest + "/.assetsync")?.compactMap { name -> Int? in
            (try? FileManager.default.attributesOfItem(atPath: sandbox.dest + "/.assetsync/" + (name as! String)))?[.size] as? Int
        } ?? []
        #expect(written.allSatisfy { $0 < 1 << 20 }, "a file of \(written.max() ?? 0) bytes under .assetsync/")
        #expect(nginx.settledAccessLog().last.map { $0.path.hasSuffix(".minisig") } == true)
    }

    /// A FIFO given as a key file (`--trusted-key`, or the secret key of `sign`): a usage error that says
    /// what it is, at once. Each run is killed after 30 s, which fails the test.
    @Test func aFIFOGivenAsAKeyFileIsAUsageErrorAtOnce() throws {
        let sandbox = try Sandbox()
        let manifest = try sandbox.manifest(base: "http://127.0.0.1:9/")
        let fifo = sandbox.root.path + "/key"
        try #require(mkfifo(fifo, 0o600) == 0)
        let trusting = try AssetSyncBinary.start(["plan", manifest, "--dest", sandbox.dest, "--trusted-key", fifo]).wait(timeout: 30)
        #expect(trusting.signal == nil && trusting.status == 2, "\(trusting.stderr)")
        #expect(
            trusting.stderr.hasPrefix("Error: '--trusted-key' file \"\(fifo)\" is a FIFO (named pipe), not a regular file: save the public key in a file"),
            "\(trusting.stderr)")
        let signing = try AssetSyncBinary.start(["sign", manifest, "--key", fifo, "--version", "1"]).wait(timeout: 30)
        #expect(signing.signal == nil && signing.status == 2, "\(signing.stderr)")
        #expect(
            signing.stderr.hasPrefix("Error: the secret key \"\(fifo)\" is a FIFO (named pipe), not a regular file: keep the key in a file"),
            "\(signing.stderr)")
        #expect(!FileManager.default.fileExists(atPath: manifest + ".minisig"))
    }

    /// A manifest whose name holds a space and a field of the trusted comment: the name is encoded in
    /// the comment, so it neither expires the signature nor changes its version.
    @Test(arguments: ["m expires=2001-01-01T00:00:00Z", "game version=2.json"])
    func aManifestNamedLikeATrustedCommentFieldIsPulled(_ name: String) throws {
        let (sandbox, nginx, _) = try Self.served { try NginxServer(root: $0) }
        defer { nginx.stop() }
        let manifest = try sandbox.writeManifest(sandbox.files, base: nginx.baseURL, name: name)
        try Self.sign(manifest, version: 10)
        let signature = try String(contentsOfFile: manifest + ".minisig", encoding: .utf8)
        let encoded = name.replacingOccurrences(of: " ", with: "%20").replacingOccurrences(of: "=", with: "%3D")
        #expect(signature.contains("\ntrusted comment: assetsync version=10 file=\(encoded)\n"), "\(signature)")
        let result = try AssetSyncBinary.run(["pull", manifest, "--dest", sandbox.dest] + Self.trusted)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try sandbox.cached() == sandbox.expected)
        let record = try String(contentsOfFile: sandbox.dest + "/.assetsync/accepted-version", encoding: .utf8)
        #expect(record.contains("version 10\n"), "\(record)")
    }

    /// Key ids are random names, not proofs: with two trusted keys of one id in one file, a signature by
    /// the second is accepted. The second key here is the other fixture key under the first one's id.
    @Test func aSignatureByTheSecondOfTwoTrustedKeysWithOneKeyIDIsAccepted() throws {
        let (sandbox, nginx, manifest) = try Self.served { try NginxServer(root: $0) }
        defer { nginx.stop() }
        let keys = try TemporaryDirectory()
        func lines(_ fixture: String) throws -> [String] {
            try String(contentsOfFile: Self.fixture(fixture), encoding: .utf8).split(separator: "\n").map(String.init)
        }
        func base64(_ line: String) throws -> [UInt8] { try [UInt8](#require(Data(base64Encoded: line))) }
        let id = try base64(lines("signing-test.pub")[1])[2..<10]
        // Public key: "Ed", id, key. Secret key (unencrypted): id at 54, checksum at 126 (zero: none, as minisign 0.11 writes).
        var publicKey = try base64(lines("signing-other.pub")[1])
        publicKey.replaceSubrange(2..<10, with: id)
        var secretKey = try base64(lines("signing-other.key")[1])
        secretKey.replaceSubrange(54..<62, with: id)
        secretKey.replaceSubrange(126..<158, with: [UInt8](repeating: 0, count: 32))
        try "untrusted comment: other key under the test key's id\n\(Data(secretKey).base64EncodedString())\n"
            .write(toFile: keys.path + "/same-id.key", atomically: true, encoding: .utf8)
        let both = try String(contentsOfFile: Self.fixture("signing-test.pub"), encoding: .utf8)
            + "untrusted comment: other key under the test key's id\n\(Data(publicKey).base64EncodedString())\n"
        try both.write(toFile: keys.path + "/both.pub", atomically: true, encoding: .utf8)
        let signed = try AssetSyncBinary.run(["sign", manifest, "--key", keys.path + "/same-id.key", "--version", "3"])
        try #require(signed.status == 0 && signed.stderr.contains("signed by key AD216FE6C785E49F"), "\(signed.stderr)")
        let result = try AssetSyncBinary.run(["pull", manifest, "--dest", sandbox.dest, "--trusted-key", keys.path + "/both.pub"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try sandbox.cached() == sandbox.expected)
        // Trusting the first key alone, the same signature is refused.
        let firstOnly = try AssetSyncBinary.run(["plan", manifest, "--dest", sandbox.dest] + Self.trusted)
        #expect(firstOnly.status == 5 && firstOnly.stderr.contains("its signature by key AD216FE6C785E49F does not match its bytes"), "\(firstOnly.stderr)")
    }

    @Test func keysAndOptionsThatCannotWorkAreUsageErrors() throws {
        let sandbox = try Sandbox()
        let manifest = try sandbox.manifest(base: "http://127.0.0.1:9/")
        let stdin = try AssetSyncBinary.run(["pull", "-"] + Self.trusted, stdin: Data())
        #expect(stdin.status == 2 && stdin.stderr.contains("standard input has no signature beside it"), "\(stdin.stderr)")
        let notAKey = try AssetSyncBinary.run(["plan", manifest, "--trusted-key", manifest])
        #expect(notAKey.status == 2 && notAKey.stderr.contains("line 1: a public key line is not base64"), "\(notAKey.stderr)")
        // Without a controlling terminal (setsid), the password of an encrypted key cannot be asked.
        let encrypted = try AssetSyncBinary.run(
            ["sign", manifest, "--key", Self.fixture("signing-encrypted.key")], prefix: ["/usr/bin/setsid", "-w"])
        #expect(encrypted.status == 2 && encrypted.stderr.contains("encrypted with a password, and there is no terminal"), "\(encrypted.stderr)")
        #expect(!FileManager.default.fileExists(atPath: manifest + ".minisig"))
        let badExpiry = try AssetSyncBinary.run(["sign", manifest, "--key", Self.fixture("signing-test.key"), "--expires", "soon"])
        #expect(badExpiry.status == 2)
        let noOutput = try AssetSyncBinary.run(["manifest", sandbox.root.path, "--base", "http://127.0.0.1:9/", "--sign", Self.fixture("signing-test.key")])
        #expect(noOutput.status == 2 && noOutput.stderr.hasPrefix("Error: '--sign' goes with '--output <file>'"), "\(noOutput.stderr)")
        let noSign = try AssetSyncBinary.run(["manifest", sandbox.root.path, "--base", "http://127.0.0.1:9/", "--version", "3"])
        #expect(noSign.status == 2 && noSign.stderr.hasPrefix("Error: '--version' goes with '--sign'"), "\(noSign.stderr)")
        let notAManifest = try AssetSyncBinary.run(["sign", Self.fixture("signing-test.pub"), "--key", Self.fixture("signing-test.key")])
        #expect(notAManifest.status == 2 && !FileManager.default.fileExists(atPath: Self.fixture("signing-test.pub") + ".minisig"))
    }

    /// minisign's encrypted key (scrypt with its default 1 GiB): the password typed on a terminal, which
    /// `script` provides; a wrong one is refused and writes nothing.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/script"), "script (util-linux) is not installed"))
    func anEncryptedKeyTakesThePasswordTypedOnTheTerminal() throws {
        let sandbox = try Sandbox()
        let manifest = try sandbox.manifest(base: "http://127.0.0.1:9/")
        let onTerminal = ["/bin/sh", "-c", "exec /usr/bin/script -qec \"$0 $*\" /dev/null"]
        let arguments = ["sign", manifest, "--key", Self.fixture("signing-encrypted.key"), "--version", "5"]
        let wrong = try AssetSyncBinary.run(arguments, stdin: Data("not it\n".utf8), prefix: onTerminal)
        #expect(wrong.status == 2 && wrong.stdout.contains("wrong password"), "\(wrong.stdout)")
        #expect(!FileManager.default.fileExists(atPath: manifest + ".minisig"))
        let right = try AssetSyncBinary.run(arguments, stdin: Data("pw\n".utf8), prefix: onTerminal)
        #expect(right.status == 0, "\(right.stdout)")
        let plan = try AssetSyncBinary.run(["plan", manifest, "--dest", sandbox.dest, "--trusted-key", Self.fixture("signing-encrypted.pub")])
        #expect(plan.status == 0, "\(plan.stderr)")
    }

    @Test(.enabled(if: hasMinisign, "minisign is not installed (make deps installs it)"))
    func minisignAndAssetsyncVerifyEachOthersSignatures() throws {
        let (sandbox, nginx, manifest) = try Self.served { try NginxServer(root: $0) }
        defer { nginx.stop() }
        // minisign's own signature, with its default trusted comment (timestamp:, file:, hashed).
        let signed = try AssetSyncBinary.runTool(Self.minisign, ["-S", "-s", Self.fixture("signing-test.key"), "-m", manifest])
        try #require(signed.status == 0, "\(signed.stderr)")
        let pulled = try AssetSyncBinary.run(["pull", manifest, "--dest", sandbox.dest] + Self.trusted)
        #expect(pulled.status == 0, "\(pulled.stderr)")
        #expect(try sandbox.cached() == sandbox.expected)
        let record = try String(contentsOfFile: sandbox.dest + "/.assetsync/accepted-version", encoding: .utf8)
        let now = Int(time(nil))
        let version = try #require(record.split(separator: "\n").first { $0.hasPrefix("version ") }.flatMap { Int($0.dropFirst(8)) })
        #expect(abs(version - now) < 600, "minisign's timestamp is the version")
        // minisign's legacy form ("Ed": the signature over the file itself, not its BLAKE2b-512).
        let legacy = try AssetSyncBinary.runTool(Self.minisign, ["-S", "-l", "-s", Self.fixture("signing-test.key"), "-m", manifest])
        try #require(legacy.status == 0, "\(legacy.stderr)")
        let verifiedLegacy = try AssetSyncBinary.run(["verify", manifest, "--dest", sandbox.dest] + Self.trusted)
        #expect(verifiedLegacy.status == 0, "\(verifiedLegacy.stderr)")

        // assetsync's signature (manifest --sign), verified by minisign -V.
        let output = sandbox.root.path + "/published.xml"
        let described = try AssetSyncBinary.run([
            "manifest", sandbox.served.path, "--base", nginx.baseURL, "--output", output,
            "--sign", Self.fixture("signing-test.key"), "--version", "9", "--expires", "2099-01-01T00:00:00Z",
        ])
        #expect(described.status == 0, "\(described.stderr)")
        let verified = try AssetSyncBinary.runTool(Self.minisign, ["-V", "-p", Self.fixture("signing-test.pub"), "-m", output])
        #expect(verified.status == 0, "\(verified.stderr)")
        #expect(verified.stdout.contains("Trusted comment: assetsync version=9 expires=2099-01-01T00:00:00Z file=published.xml"), "\(verified.stdout)")
        try Data(" ".utf8).write(to: URL(fileURLWithPath: output), options: .atomic)
        #expect(try AssetSyncBinary.runTool(Self.minisign, ["-V", "-p", Self.fixture("signing-test.pub"), "-m", output]).status != 0)
    }
}
