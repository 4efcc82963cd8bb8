import Foundation
import Glibc
import Testing

/// A manifest given as a URL: fetched under the asset rules, cached with its
/// validators, asked for again conditionally.
@Suite struct RemoteManifestTests {
    @Test func answered200Then304Then200WithAChange() throws {
        let sandbox = try Sandbox(serving: ["a.bin": PullNginxTests.random(70_000), "dir/b.bin": PullNginxTests.random(1000)])
        let nginx = try NginxServer(root: sandbox.served)
        defer { nginx.stop() }
        try sandbox.serveManifest(base: nginx.baseURL)
        let url = nginx.url("manifest.json")

        let first = try AssetSyncBinary.run(["pull", url, "--dest", sandbox.dest])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(try sandbox.cached() == sandbox.expected)
        let firstLog = nginx.waitForAccessLog(count: 3)
        #expect(firstLog.first?.path == "/manifest.json" && firstLog.first?.status == 200 && firstLog.first?.ifNoneMatch == nil)

        nginx.clearAccessLog()
        let second = try AssetSyncBinary.run(["pull", url, "--dest", sandbox.dest])
        #expect(second.status == 0)
        #expect(second.stderr.hasPrefix("0 new, 0 updated, 2 current, 0 failed"))
        let secondLog = nginx.settledAccessLog()
        #expect(secondLog.count == 1)  // the conditional request, and nothing else
        #expect(secondLog.first?.status == 304 && secondLog.first?.ifNoneMatch != nil)

        let changed = PullNginxTests.random(2000)
        try sandbox.serve("dir/b.bin", changed)
        try sandbox.serveManifest(base: nginx.baseURL)
        // A new Last-Modified second as well as a new ETag (nginx's is the time and the size).
        try FileManager.default.setAttributes(
            [.modificationDate: Date(timeIntervalSinceNow: 2)], ofItemAtPath: sandbox.served.path + "/" + Sandbox.manifestName)
        nginx.clearAccessLog()
        let third = try AssetSyncBinary.run(["pull", url, "--dest", sandbox.dest])
        #expect(third.status == 0, "\(third.stderr)")
        #expect(third.stderr.contains("updated  dir/b.bin (2.0 KiB)\n"))
        #expect(try sandbox.cached() == sandbox.expected)
        let thirdLog = nginx.waitForAccessLog(count: 2)
        #expect(thirdLog.map(\.path) == ["/manifest.json", "/dir/b.bin"])
        #expect(thirdLog.first?.status == 200 && thirdLog.first?.ifNoneMatch != nil)
    }

    @Test func anUnreachableOrInvalidRemoteManifestDownloadsNothing() throws {
        let sandbox = try Sandbox(serving: ["bad.json": Data("{\"version\": 2, \"files\": []}".utf8)])
        let nginx = try NginxServer(root: sandbox.served)
        defer { nginx.stop() }
        let missing = try AssetSyncBinary.run(["pull", nginx.url("nope.json"), "--dest", sandbox.dest])
        #expect(missing.status == 1)
        #expect(missing.stderr == "Error: cannot fetch the manifest \(nginx.url("nope.json")): HTTP 404. Nothing was downloaded.\n")
        let invalid = try AssetSyncBinary.run(["plan", nginx.url("bad.json"), "--dest", sandbox.dest])
        #expect(invalid.status == 2)
        #expect(invalid.stderr == "Error: \(nginx.url("bad.json")):1:13: version 2 is not supported; this assetsync reads version 1\n")
    }
}
