import Foundation
import Testing
@testable import AssetSyncCache
import AssetSyncManifestIO
@testable import AssetSyncModel
@testable import AssetSyncPull
@testable import AssetSyncTransfer
import TestSupport

/// A pull of a manifest given as a URL, in process: the manifest fetched through the run's
/// transport like its files, and kept in the destination for the next run's conditional request.
@Suite struct PullRunRemoteManifestTests {
    static let url = "http://fake.invalid/manifest.json"

    @Test("a remote manifest is fetched through the run's transport, and a next run answered 304 pulls by the cached copy")
    func remoteManifestThroughTheTransport() throws {
        let directory = try TemporaryDirectory()
        var request = SyncRequest(manifest: .url(Self.url), dest: directory.path + "/dest")
        request.options.retryBaseDelay = 0.01
        let manifest = Array(ManifestWriter.render(PullPipelineTests.manifest, as: .json).utf8)
        var responses = Dictionary(uniqueKeysWithValues: PullRunTests.files.map { ($0.path, [FakeTransport.Response.ok($0.body)]) })
        responses[Self.url] = [.ok(manifest, etag: "\"m1\"")]
        _ = try PullRunTests.pull(request, PullRunTests.effects(FakeTransport(responses: responses)))
        let copy = request.dest + "/.assetsync/" + ManifestCopy.fileName
        #expect(FileManager.default.contents(atPath: copy).map(Array.init) == manifest)

        // The manifest is asked for again, conditionally (a 304 to an unconditional request fails the
        // run), and the copy it keeps says which file is missing.
        try FileManager.default.removeItem(atPath: request.dest + "/" + PullRunTests.files[0].path)
        let refetch = [PullRunTests.files[0].path: [FakeTransport.Response.ok(PullRunTests.files[0].body)]]
        _ = try PullRunTests.pull(request, PullRunTests.effects(FakeTransport(responses: refetch.merging([Self.url: [.status(304)]]) { $1 })))
        #expect(FileManager.default.contents(atPath: copy).map(Array.init) == manifest)
        for file in PullRunTests.files {
            #expect(FileManager.default.contents(atPath: request.dest + "/" + file.path).map(Array.init) == file.body, "\(file.path)")
        }
    }
}
