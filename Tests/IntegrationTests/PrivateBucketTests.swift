import AssetSync
import Foundation
import Glibc
import Testing
import TestSupport

/// A private bucket as the origin: moto with authentication enforced (every request after the set-up
/// checked against an IAM user's key), behind a logging nginx. The manifest and its files are named
/// `s3://assets/…`, the key is found as the AWS tools find it, and each request is signed by
/// assetsync; the key never goes anywhere but the store.
@Suite(.enabled(if: ObjectStore.isInstalled, "moto is not installed in .build/moto (make deps installs it from PyPI)"))
struct PrivateBucketTests {
    /// The test process's environment without any AWS setting, and with a home of its own: only
    /// what a test gives counts.
    static func environment(_ sandbox: Sandbox, _ variables: [String: String] = [:]) -> [String: String] {
        ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("AWS_") }
            .merging(["HOME": sandbox.root.path]) { $1 }.merging(variables) { $1 }
    }

    static func keyVariables(_ store: ObjectStore, secret: String? = nil) -> [String: String] {
        ["AWS_ACCESS_KEY_ID": store.credentials!.key, "AWS_SECRET_ACCESS_KEY": secret ?? store.credentials!.secret]
    }

    /// `files` put under `set/` in the bucket and named by a manifest whose base is `s3://assets/set/`,
    /// itself put at `s3://assets/set/manifest.json`.
    static func publish(_ files: [String: Data], to store: ObjectStore, in sandbox: Sandbox) throws -> [String: ObjectStore.Object] {
        var objects: [String: ObjectStore.Object] = [:]
        for (path, data) in files.sorted(by: { $0.key < $1.key }) {
            let partSize = ObjectStorageTests.partSize
            objects[path] = try store.put("set/" + path, data, partSize: data.count > partSize ? partSize : nil)
            sandbox.add(path, data, url: nil)
        }
        _ = try store.put("set/manifest.json", Data(contentsOf: URL(fileURLWithPath: sandbox.manifest(base: "s3://assets/set/"))))
        return objects
    }

    @Test func aPrivateBucketAndItsManifestArePulledWithSignedRequests() throws {
        let store = try ObjectStore(authenticated: true)
        defer { store.stop() }
        let sandbox = try Sandbox()
        let objects = try Self.publish([
            "videos/intro.bin": PullNginxTests.random(300_000),
            "packs/level 1.zip": PullNginxTests.random(2 * ObjectStorageTests.partSize + 12_345),
        ], to: store, in: sandbox)
        #expect(objects["packs/level 1.zip"]?.etag.hasSuffix("-3\"") == true)
        let pull = ["pull", "s3://assets/set/manifest.json", "--dest", sandbox.dest, "--endpoint-url", store.endpoint]

        let first = try AssetSyncBinary.run(pull, environment: Self.environment(sandbox, Self.keyVariables(store)))
        #expect(first.status == 0, "\(first.stderr)")
        #expect(try sandbox.cached() == sandbox.expected)
        let requests = store.front.settledAccessLog()
        #expect(Set(requests.map(\.uri)) == ["/assets/set/manifest.json", "/assets/set/videos/intro.bin", "/assets/set/packs/level%201.zip"],
            "\(requests.map(\.raw))")
        #expect(requests.allSatisfy { $0.method == "GET" && [200, 206].contains($0.status) }, "\(requests.map(\.raw))")
        let signed = "AWS4-HMAC-SHA256 Credential=\(store.credentials!.key)/"
        #expect(requests.allSatisfy { $0.authorization?.hasPrefix(signed) == true }, "\(requests.map(\.raw))")

        store.front.clearAccessLog()
        let noOp = try AssetSyncBinary.run(pull, environment: Self.environment(sandbox, Self.keyVariables(store)))
        #expect(noOp.status == 0, "\(noOp.stderr)")
        #expect(store.front.settledAccessLog().map(\.uri) == ["/assets/set/manifest.json"])
    }

    @Test func aWrongSecretIsRefusedByTheStoreAndSaidToBeTheSecret() throws {
        let store = try ObjectStore(authenticated: true)
        defer { store.stop() }
        let sandbox = try Sandbox()
        _ = try Self.publish(["a.bin": PullNginxTests.random(1000)], to: store, in: sandbox)
        let refused = try AssetSyncBinary.run(
            ["pull", "s3://assets/set/manifest.json", "--dest", sandbox.dest, "--endpoint-url", store.endpoint],
            environment: Self.environment(sandbox, Self.keyVariables(store, secret: "not-the-secret")))
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("cannot fetch the manifest s3://assets/set/manifest.json: HTTP 403 SignatureDoesNotMatch"), "\(refused.stderr)")
        #expect(refused.stderr.contains("secret access key"), "\(refused.stderr)")
        #expect(try sandbox.cached().isEmpty)

        let unsigned = try AssetSyncBinary.run(
            ["pull", "s3://assets/set/manifest.json", "--dest", sandbox.dest, "--endpoint-url", store.endpoint],
            environment: Self.environment(sandbox))
        #expect(unsigned.status != 0 && unsigned.stderr.contains("HTTP 403"), "\(unsigned.stderr)")
    }

    /// The profile of the shared files names the key, the region, the endpoint and the addressing
    /// style; an entry's own `s3://` URL goes to the store signed, its mirror on another host
    /// unsigned: the key is the store's alone.
    @Test func aProfileNamesTheStoreAndItsKeyNeverReachesAMirror() throws {
        let store = try ObjectStore(authenticated: true)
        defer { store.stop() }
        let sandbox = try Sandbox()
        let stored = PullNginxTests.random(70_000)
        let mirrored = PullNginxTests.random(50_000)
        _ = try store.put("objects/stored.bin", stored)
        try sandbox.writeServed("mirror/mirrored.bin", mirrored)
        let mirror = try NginxServer(root: sandbox.served)
        defer { mirror.stop() }
        sandbox.add("stored.bin", stored, url: "s3://assets/objects/stored.bin")
        sandbox.add("mirrored.bin", mirrored, url: "s3://assets/objects/missing.bin", mirrors: [mirror.baseURL + "mirror/mirrored.bin"])
        let manifest = try sandbox.manifest()
        let aws = sandbox.root.url.appendingPathComponent("aws")
        try FileManager.default.createDirectory(at: aws, withIntermediateDirectories: true)
        try Data("""
            [ci]
            aws_access_key_id = \(store.credentials!.key)
            aws_secret_access_key = \(store.credentials!.secret)
            """.utf8).write(to: aws.appendingPathComponent("credentials"))
        try Data("""
            [profile ci]
            region = us-east-1
            endpoint_url = \(store.endpoint)
            s3 =
                addressing_style = path
            """.utf8).write(to: aws.appendingPathComponent("config"))

        let pulled = try AssetSyncBinary.run(["pull", manifest, "--dest", sandbox.dest, "--profile", "ci"], environment: Self.environment(sandbox, [
            "AWS_CONFIG_FILE": aws.appendingPathComponent("config").path,
            "AWS_SHARED_CREDENTIALS_FILE": aws.appendingPathComponent("credentials").path,
        ]))
        #expect(pulled.status == 0, "\(pulled.stderr)")
        #expect(try sandbox.cached() == sandbox.expected)
        let asked = store.front.settledAccessLog()
        #expect(Set(asked.map(\.uri)) == ["/assets/objects/stored.bin", "/assets/objects/missing.bin"], "\(asked.map(\.raw))")
        #expect(asked.allSatisfy { $0.authorization?.hasPrefix("AWS4-HMAC-SHA256 ") == true }, "\(asked.map(\.raw))")
        let mirrorLog = mirror.settledAccessLog()
        #expect(mirrorLog.map(\.uri) == ["/mirror/mirrored.bin"] && mirrorLog.allSatisfy { $0.authorization == nil }, "\(mirrorLog.map(\.raw))")
    }

    /// A killed pull of a multipart object resumes signed: its Range and its If-Range on the
    /// composite ETag (`"…-3"`) are signed, so the store checks them and answers 206 with the rest.
    @Test func aMultipartObjectResumesSignedWithItsCompositeETag() throws {
        let store = try ObjectStore(authenticated: true)
        defer { store.stop() }
        let sandbox = try Sandbox()
        let data = PullNginxTests.random(2 * ObjectStorageTests.partSize + 54_321)
        let objects = try Self.publish(["big/video.bin": data], to: store, in: sandbox)
        let etag = try #require(objects["big/video.bin"]?.etag)
        #expect(etag.hasSuffix("-3\""))
        let pull = ["pull", "s3://assets/set/manifest.json", "--dest", sandbox.dest, "--endpoint-url", store.endpoint]
        let environment = Self.environment(sandbox, Self.keyVariables(store))

        let killed = try AssetSyncBinary.start(pull + ["--limit-rate", "2M"], environment: environment)
        let reached = killed.waitForPartial(in: sandbox.dest, bytes: 1 << 20)
        killed.signal(SIGKILL)
        _ = try killed.wait()
        try #require(reached, "the first pull never held 1 MiB in its partial")
        store.front.clearAccessLog()

        let resumed = try AssetSyncBinary.run(pull, environment: environment)
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(try sandbox.cached() == sandbox.expected)
        let resumes = store.front.settledAccessLog().filter { $0.range != nil }
        #expect(resumes.count == 1, "\(resumes.map(\.raw))")
        if let request = resumes.first {
            #expect(request.ifRange == etag && request.status == 206 && request.uri == "/assets/set/big/video.bin", "\(request.raw)")
            #expect(request.authorization?.contains("SignedHeaders=host;if-range;range;") == true, "\(request.raw)")
        }
    }

    /// The library signs with the key its settings give, reading none of the process's AWS
    /// settings when told an environment of its own; an error names what the store refused.
    @Test func theLibrarySignsWithTheKeyItsSettingsGive() async throws {
        let store = try ObjectStore(authenticated: true)
        defer { store.stop() }
        let sandbox = try Sandbox()
        _ = try Self.publish(["a.bin": PullNginxTests.random(40_000), "d/b.bin": PullNginxTests.random(90_000)], to: store, in: sandbox)
        var request = PullRequest(manifest: .url("s3://assets/set/manifest.json"), destination: sandbox.dest)
        request.network.objectStorage.endpoint = store.endpoint
        request.network.objectStorage.environment = ["HOME": sandbox.root.path]
        request.network.objectStorage.credentials = .init(accessKeyID: store.credentials!.key, secretAccessKey: store.credentials!.secret)
        #expect(!"\(request.network.objectStorage.credentials!)".contains(store.credentials!.secret))
        let report = try await AssetSync.pull(request) { _ in }
        #expect(report.succeeded)
        #expect(try sandbox.cached() == sandbox.expected)

        request.network.objectStorage.credentials?.secretAccessKey = "not-the-secret"
        request.destination = sandbox.root.path + "/other"
        do {
            _ = try await AssetSync.pull(request) { _ in }
            Issue.record("a wrong secret was not refused")
        } catch {
            #expect(error.kind == .remote && error.message.contains("SignatureDoesNotMatch"), "\(error)")
        }
    }
}
