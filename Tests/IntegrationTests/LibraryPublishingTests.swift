import AssetSync
import Foundation
import Testing
import TestSupport

/// The publishing side of the `AssetSync` library in this process, through its public API: a
/// directory described as a manifest, the manifest signed, and a request with the public key trusting
/// exactly that manifest (a plan needs no server); a changed byte, and it is refused as untrusted.
@Suite struct LibraryPublishingTests {
    static func fixture(_ name: String) -> String {
        AssetSyncBinary.packageRoot.appendingPathComponent("Tests/IntegrationTests/Fixtures/" + name).path
    }

    @Test("a described and signed manifest is trusted by its public key, and refused once a byte of it changes")
    func aDescribedSignedManifestIsTrustedUntilChanged() async throws {
        let directory = try TemporaryDirectory()
        try directory.write("assets/a.bin", "hello")
        try directory.write("assets/dir/b.txt", "second file")
        let text = try await AssetSync.describe(directory: directory.path + "/assets", base: "http://127.0.0.1:9/assets", format: .json, sha256: true)
        #expect(text.contains("\"a.bin\"") && text.contains("\"dir/b.txt\"") && text.contains("sha256"))
        let manifest = try directory.write("manifest.json", text)
        let signature = try await AssetSync.sign(manifestAt: manifest, secretKeyFile: Self.fixture("signing-test.key"), version: 7)
        #expect(signature == manifest + ".minisig")
        var request = PullRequest(manifest: .file(manifest), destination: directory.path + "/dest")
        request.trustedKeyFiles = [Self.fixture("signing-test.pub")]
        let plan = try await AssetSync.plan(request)
        #expect(plan.files == 2 && plan.new == 2)
        try directory.write("manifest.json", text + " ")
        do {
            _ = try await AssetSync.plan(request)
            Issue.record("a changed manifest was trusted")
        } catch {
            #expect(error.kind == .untrusted, "\(error)")
        }
    }

    @Test("describing what is not a directory, or signing with what is not a key, fails as invalid input naming it")
    func publishingFailuresNameWhatWasGiven() async throws {
        let directory = try TemporaryDirectory()
        let file = try directory.write("file", "x")
        do {
            _ = try await AssetSync.describe(directory: file, base: "http://127.0.0.1:9/")
            Issue.record("a file was described as a directory")
        } catch {
            #expect(error.kind == .invalidInput && error.message.contains("is not a directory"), "\(error)")
        }
        let manifest = try directory.write("m.json", "{\"version\": 1, \"base\": \"http://127.0.0.1:9/\", \"files\": []}")
        do {
            _ = try await AssetSync.sign(manifestAt: manifest, secretKeyFile: file)
            Issue.record("a file that holds no key signed a manifest")
        } catch {
            #expect(error.kind == .invalidInput && error.message.contains(file), "\(error)")
        }
        #expect(!FileManager.default.fileExists(atPath: manifest + ".minisig"))
    }
}
