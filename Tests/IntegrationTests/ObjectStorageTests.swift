import Foundation
import Glibc
import Testing
import TestSupport

/// Object storage as the origin: an S3-compatible server (moto) with presigned GET URLs in the
/// manifest and for the manifest itself, seen through a logging nginx (`ObjectStore`).
@Suite(.enabled(if: ObjectStore.isInstalled, "moto is not installed in .build/moto (make deps installs it from PyPI)"))
struct ObjectStorageTests {
    /// Five MiB: S3's smallest part but the last.
    static let partSize = 5 << 20

    @Test func presignedURLsAndAPresignedManifestAreUsedExactlyAsGiven() throws {
        let store = try ObjectStore()
        defer { store.stop() }
        let sandbox = try Sandbox()
        let files = [
            "videos/intro.bin": PullNginxTests.random(300_000),
            "packs/level 1.zip": PullNginxTests.random(2 * Self.partSize + 12_345),
            "config/readme.txt": Data("hello, bucket".utf8),
        ]
        var targets: [String] = []
        for (path, data) in files.sorted(by: { $0.key < $1.key }) {
            let object = try store.put(path, data, partSize: data.count > Self.partSize ? Self.partSize : nil)
            sandbox.add(path, data, url: object.url)
            targets.append(ObjectStore.target(of: object.url))
        }
        let manifest = try store.put("manifests/nightly.json", Data(contentsOf: URL(fileURLWithPath: sandbox.manifest())))
        #expect(manifest.url.contains("X-Amz-Signature="))
        #expect(manifest.url.contains("%2F"))  // the credential scope's slashes, which must stay encoded

        let first = try AssetSyncBinary.run(["pull", manifest.url, "--dest", sandbox.dest])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(try sandbox.cached() == sandbox.expected)
        let requests = store.front.settledAccessLog()
        #expect(requests.allSatisfy { $0.method == "GET" && [200, 206].contains($0.status) }, "\(requests.map(\.raw))")
        #expect(Set(requests.map(\.uri)) == Set(targets + [ObjectStore.target(of: manifest.url)]), "\(requests.map(\.uri))")

        store.front.clearAccessLog()
        let noOp = try AssetSyncBinary.run(["pull", manifest.url, "--dest", sandbox.dest])
        #expect(noOp.status == 0, "\(noOp.stderr)")
        #expect(store.front.settledAccessLog().map(\.uri) == [ObjectStore.target(of: manifest.url)])
    }

    /// Starts a pull held to 2 MiB/s and kills it once 1 MiB is in its partial.
    private func killedMidway(_ sandbox: Sandbox, manifest: String) throws {
        let killed = try AssetSyncBinary.start(["pull", manifest, "--dest", sandbox.dest, "--limit-rate", "2M"])
        let reached = killed.waitForPartial(in: sandbox.dest, bytes: 1 << 20)
        killed.signal(SIGKILL)
        _ = try killed.wait()
        try #require(reached, "the first pull never held 1 MiB in its partial")
        try #require(try sandbox.cached().isEmpty)
    }

    /// The ETag of a multipart upload (`"…-3"`) is no MD5 of the bytes: it serves as If-Range and nothing else.
    @Test func aMultipartObjectResumesWithRangeAndItsETagAsTheValidator() throws {
        let store = try ObjectStore()
        defer { store.stop() }
        let sandbox = try Sandbox()
        let data = PullNginxTests.random(2 * Self.partSize + 54_321)
        let object = try store.put("big/video.bin", data, partSize: Self.partSize)
        #expect(object.etag.hasSuffix("-3\""))
        sandbox.add("big/video.bin", data, url: object.url)
        let manifest = try sandbox.manifest()

        try killedMidway(sandbox, manifest: manifest)
        let record = try sandbox.partialNames().filter { $0.hasSuffix(".resume") }.map {
            try String(contentsOfFile: sandbox.partialDirectory + "/" + $0, encoding: .utf8)
        }
        #expect(record.count == 1 && record[0].contains("etag \(object.etag)\n"), "\(record)")
        store.front.clearAccessLog()

        let resumed = try AssetSyncBinary.run(["pull", manifest, "--dest", sandbox.dest])
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(try sandbox.cached() == sandbox.expected)
        // The killed pull's request may be logged after the clear, when nginx notices its client left:
        // the resume is the one request with a Range.
        let log = store.front.settledAccessLog().filter { $0.range != nil }
        #expect(log.count == 1, "\(log.map(\.raw))")
        if let request = log.first, let range = request.range {
            let from = Int(range.dropFirst("bytes=".count).dropLast())
            #expect(range.hasPrefix("bytes=") && range.hasSuffix("-") && from.map { $0 >= 1 << 20 } == true, "\(range)")
            #expect(request.ifRange == object.etag)
            #expect(request.uri == ObjectStore.target(of: object.url))
            #expect(request.status == 206)
            #expect(request.bodyBytesSent == data.count - (from ?? 0))
        } else {
            Issue.record("the resume sent no Range: \(log.map(\.raw))")
        }
    }

    /// moto ignores If-Range: a resume of a replaced object is answered 206 with the new object's bytes.
    /// They are refused, never spliced after the old ones; the manifest (still naming the old bytes)
    /// then fails the file by its CRC, and nothing reaches the final path.
    @Test func aResumeOfAReplacedObjectIsNotSpliced() throws {
        let store = try ObjectStore()
        defer { store.stop() }
        let sandbox = try Sandbox()
        // 24 MiB at 2 MiB/s: the kill at 1 MiB has seconds to spare on a loaded machine before the object is whole.
        let old = PullNginxTests.random(24 << 20)
        let object = try store.put("a.bin", old)
        sandbox.add("a.bin", old, url: object.url)
        let manifest = try sandbox.manifest()
        try killedMidway(sandbox, manifest: manifest)

        let replaced = try store.put("a.bin", PullNginxTests.random(old.count))
        #expect(replaced.etag != object.etag)
        store.front.clearAccessLog()
        let resumed = try AssetSyncBinary.run(["pull", manifest, "--dest", sandbox.dest, "--retries", "1"])
        #expect(resumed.status == 1, "\(resumed.stderr)")
        #expect(resumed.stderr.contains(
            "a resume of version \(object.etag) was answered with version \(replaced.etag) (the server ignores If-Range); restarting from zero"),
            "\(resumed.stderr)")
        #expect(sandbox.finalContent("a.bin") == nil)
        let resumes = store.front.settledAccessLog().filter { $0.ifRange != nil }
        #expect(resumes.count == 1 && resumes[0].ifRange == object.etag && resumes[0].status == 206, "\(resumes.map(\.raw))")
    }
}
