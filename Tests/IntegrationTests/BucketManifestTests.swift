import AssetSync
import Foundation
import Testing
import TestSupport

/// `assetsync manifest s3://BUCKET/PREFIX/` against moto with authentication enforced, behind a
/// logging nginx: the listing read page by page, an object the store keeps a CRC-32 of never
/// downloaded, the others (a multipart upload's composite checksum among them) streamed and
/// hashed; the manifest it writes then pulls the same bytes.
@Suite(.enabled(if: ObjectStore.isInstalled, "moto is not installed in .build/moto (make deps installs it from PyPI)"))
struct BucketManifestTests {
    /// The entries of a JSON manifest: path → (size, CRC-32 in hex).
    static func entries(ofJSON path: String) throws -> [String: [String]] {
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any]
        let files = try #require(object?["files"] as? [[String: Any]])
        return Dictionary(uniqueKeysWithValues: files.map { file in
            (file["path"] as? String ?? "", ["\(file["size"] ?? "")", file["crc32"] as? String ?? ""])
        })
    }

    @Test func aBucketsPrefixIsDescribedByItsStoredCRC32sAndTheRestStreamedOnce() throws {
        let store = try ObjectStore(authenticated: true)
        defer { store.stop() }
        let sandbox = try Sandbox()
        let kept = PullNginxTests.random(120_000)
        let spaced = PullNginxTests.random(3_000)
        let unsummed = PullNginxTests.random(80_000)
        let multipart = PullNginxTests.random(ObjectStorageTests.partSize + 4_321)
        _ = try store.put("set/kept.bin", kept, checksum: .crc32)
        _ = try store.put("set/d/x y.bin", spaced, checksum: .crc32)
        _ = try store.put("set/unsummed.bin", unsummed, checksum: .none)
        let parts = try store.put("set/big/multipart.bin", multipart, partSize: ObjectStorageTests.partSize, checksum: .crc32)
        #expect(parts.etag.hasSuffix("-2\""))
        _ = try store.put("set/d/", Data(), checksum: .none)
        _ = try store.put("other/outside.bin", Data("not under the prefix".utf8), checksum: .none)
        for (path, data) in [("kept.bin", kept), ("d/x y.bin", spaced), ("unsummed.bin", unsummed), ("big/multipart.bin", multipart)] {
            sandbox.add(path, data, url: nil)
        }
        let output = sandbox.root.path + "/bucket.json"
        let environment = PrivateBucketTests.environment(sandbox, PrivateBucketTests.keyVariables(store))
        store.front.clearAccessLog()

        let described = try AssetSyncBinary.run(
            ["manifest", "s3://assets/set/", "--format", "json", "--output", output, "--endpoint-url", store.endpoint],
            environment: environment)
        #expect(described.status == 0, "\(described.stderr)")
        #expect(described.stderr.hasPrefix("""
            Described 4 objects under s3://assets/set/: 2 by the CRC-32 the store keeps, 2 streamed and hashed \
            (1 multipart, whose stored checksum is of their parts); 1 folder markers left out.

            """), "\(described.stderr)")
        let expected = Dictionary(uniqueKeysWithValues: sandbox.files.map { ($0.path, ["\($0.size)", $0.crc32]) })
        #expect(try Self.entries(ofJSON: output) == expected)
        // Only the objects without a CRC-32 of their own were downloaded.
        let downloads = store.front.settledAccessLog().filter { !$0.uri.contains("?") }.map(\.uri)
        #expect(Set(downloads) == ["/assets/set/unsummed.bin", "/assets/set/big/multipart.bin"], "\(downloads)")

        let pulled = try AssetSyncBinary.run(["pull", output, "--dest", sandbox.dest, "--endpoint-url", store.endpoint], environment: environment)
        #expect(pulled.status == 0, "\(pulled.stderr)")
        #expect(try sandbox.cached() == sandbox.expected)
    }

    /// A store without GetObjectAttributes (not every S3-compatible one has it) costs downloads, never the manifest.
    @Test func aStoreWithoutObjectAttributesHasEveryObjectStreamed() throws {
        let store = try ObjectStore(authenticated: true, withoutAttributes: true)
        defer { store.stop() }
        let sandbox = try Sandbox()
        let data = PullNginxTests.random(30_000)
        _ = try store.put("plain/a.bin", data, checksum: .crc32)
        sandbox.add("a.bin", data, url: nil)
        let output = sandbox.root.path + "/plain.json"
        let described = try AssetSyncBinary.run(
            ["manifest", "s3://assets/plain/", "--format", "json", "--output", output, "--endpoint-url", store.endpoint],
            environment: PrivateBucketTests.environment(sandbox, PrivateBucketTests.keyVariables(store)))
        #expect(described.status == 0, "\(described.stderr)")
        #expect(described.stderr.hasPrefix("""
            Described 1 objects under s3://assets/plain/: 0 by the CRC-32 the store keeps, 1 streamed and hashed \
            (1 whose attributes the store did not give: HTTP 501).

            """), "\(described.stderr)")
        #expect(try Self.entries(ofJSON: output) == ["a.bin": ["30000", TestManifest.crc32Hex(data)]])
    }

    /// S3 keeps "a" and "a/b" side by side; a cache directory cannot hold both, so no manifest lists them.
    @Test func keysThatCannotShareACacheAreRefusedByName() throws {
        let store = try ObjectStore(authenticated: true)
        defer { store.stop() }
        let sandbox = try Sandbox()
        _ = try store.put("clash/a", Data("file".utf8), checksum: .crc32)
        _ = try store.put("clash/a/b", Data("under it".utf8), checksum: .crc32)
        let described = try AssetSyncBinary.run(
            ["manifest", "s3://assets/clash/", "--endpoint-url", store.endpoint],
            environment: PrivateBucketTests.environment(sandbox, PrivateBucketTests.keyVariables(store)))
        #expect(described.status == 2 && described.stdout.isEmpty, "\(described.stderr)")
        #expect(described.stderr.hasPrefix(
            "Error: cannot describe s3://assets/clash/: the keys cannot be listed in one manifest: path is a file here but a directory of \"a/b\""),
            "\(described.stderr)")
    }

    /// More keys than a page holds: the listing goes on with its continuation token, every key once.
    @Test func aListingLongerThanAPageIsReadPageByPage() throws {
        let store = try ObjectStore(authenticated: true)
        defer { store.stop() }
        let sandbox = try Sandbox()
        try store.putMany(prefix: "many/k", count: 1_003)
        store.front.clearAccessLog()
        let output = sandbox.root.path + "/many.json"
        let described = try AssetSyncBinary.run(
            ["manifest", "s3://assets/many", "--format", "json", "--output", output, "--endpoint-url", store.endpoint, "--base", "https://cdn.example/many/"],
            environment: PrivateBucketTests.environment(sandbox, PrivateBucketTests.keyVariables(store)))
        #expect(described.status == 0, "\(described.stderr)")
        let entries = try Self.entries(ofJSON: output)
        #expect(entries.count == 1_003)
        #expect(entries["k01002.txt"] == ["15", TestManifest.crc32Hex(Data("many/k01002.txt".utf8))])
        let listings = store.front.settledAccessLog().filter { $0.uri.contains("list-type=2") }
        #expect(listings.count == 2 && listings.last?.uri.contains("continuation-token=") == true, "\(listings.map(\.uri))")
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: output))) as? [String: Any]
        #expect(object?["base"] as? String == "https://cdn.example/many/")
    }

    /// The library describes a bucket with the key and endpoint its settings give; a Metalink of a
    /// bucket needs a base its clients can fetch.
    @Test func theLibraryDescribesABucketWithItsOwnSettings() async throws {
        let store = try ObjectStore(authenticated: true)
        defer { store.stop() }
        let sandbox = try Sandbox()
        let data = PullNginxTests.random(10_000)
        _ = try store.put("lib/a.bin", data, checksum: .crc32)
        var network = NetworkSettings()
        network.objectStorage.endpoint = store.endpoint
        network.objectStorage.environment = ["HOME": sandbox.root.path]
        network.objectStorage.credentials = .init(accessKeyID: store.credentials!.key, secretAccessKey: store.credentials!.secret)
        let text = try await AssetSync.describe(bucket: "s3://assets/lib/", format: .json, network: network)
        #expect(text.contains("\"base\": \"s3://assets/lib/\"") && text.contains(
            "{\"path\": \"a.bin\", \"size\": 10000, \"crc32\": \"\(TestManifest.crc32Hex(data))\"}"), "\(text)")
        do {
            _ = try await AssetSync.describe(bucket: "s3://assets/lib/", format: .metalink, network: network)
            Issue.record("a Metalink of s3:// URLs was written")
        } catch {
            #expect(error.kind == .invalidInput && error.message.contains("a Metalink's URLs are http or https"), "\(error)")
        }
    }
}
