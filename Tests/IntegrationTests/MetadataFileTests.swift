import Foundation
import Glibc
import TestSupport
import Testing

/// What is planted under `.assetsync/` (a FIFO, a huge sparse file, a hard link to a file
/// outside DEST) can neither hang, crash nor redirect a run.
@Suite struct MetadataFileTests {
    /// A sandbox whose manifest nginx serves too, pulled once by URL, with the URL.
    private static func pulledRemotely(_ sandbox: Sandbox, _ nginx: NginxServer) throws -> String {
        try sandbox.serveManifest(base: nginx.baseURL)
        let url = nginx.url("manifest.json")
        let first = try AssetSyncBinary.run(["pull", url, "--dest", sandbox.dest])
        #expect(first.status == 0, "\(first.stderr)")
        return url
    }

    /// Replaces `path` with a FIFO that nobody writes.
    private static func plantFIFO(_ path: String) {
        unlink(path)
        #expect(mkfifo(path, 0o644) == 0)
    }

    /// The name of an entry's partial, as assetsync derives it: a 64-bit FNV-1a of the path, in hex.
    private static func partialName(_ path: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in path.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
        let digits = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }

    // A run that blocks is killed after the timeout and fails its status check rather than hanging the suite.
    @Test("a FIFO at .assetsync/state, at a resume record, at manifest.meta or at the cached manifest blocks neither pull nor verify")
    func fifosAreTreatedAsAbsent() throws {
        let sandbox = try Sandbox(serving: ["a.bin": PullNginxTests.random(70_000), "b.bin": PullNginxTests.random(1000)])
        let nginx = try NginxServer(root: sandbox.served)
        defer { nginx.stop() }
        let url = try Self.pulledRemotely(sandbox, nginx)
        let metadata = sandbox.dest + "/.assetsync"

        Self.plantFIFO(metadata + "/state")
        Self.plantFIFO(metadata + "/manifest.meta")
        try FileManager.default.removeItem(atPath: sandbox.dest + "/a.bin")
        try Data("partial".utf8).write(to: URL(fileURLWithPath: metadata + "/partial/" + Self.partialName("a.bin") + ".part"))
        Self.plantFIFO(metadata + "/partial/" + Self.partialName("a.bin") + ".resume")
        let pull = try AssetSyncBinary.start(["pull", url, "--dest", sandbox.dest]).wait(timeout: 60)
        #expect(pull.status == 0, "\(pull.stderr)")
        #expect(try sandbox.cached() == sandbox.expected)

        Self.plantFIFO(metadata + "/state")
        Self.plantFIFO(metadata + "/manifest")
        let verify = try AssetSyncBinary.start(["verify", url, "--dest", sandbox.dest]).wait(timeout: 60)
        #expect(verify.status == 0, "\(verify.stderr)")
        #expect(Self.isRegularFile(metadata + "/manifest"))
    }

    @Test("a sparse 1 TiB .assetsync/state is torn: pull and verify re-read the files instead of crashing")
    func aHugeStateIndexIsTorn() throws {
        let sandbox = try Sandbox(serving: ["a.bin": PullNginxTests.random(1000)])
        let nginx = try NginxServer(root: sandbox.served)
        defer { nginx.stop() }
        let manifest = try sandbox.manifest(base: nginx.baseURL)
        #expect(try AssetSyncBinary.run(["pull", manifest, "--dest", sandbox.dest]).status == 0)
        let state = sandbox.dest + "/.assetsync/state"
        #expect(truncate(state, 1 << 40) == 0)
        let pull = try AssetSyncBinary.run(["pull", manifest, "--dest", sandbox.dest])
        #expect(pull.status == 0, "\(pull.stderr)")
        #expect(pull.stderr.hasPrefix("0 new, 0 updated, 1 current, 0 failed"))
        #expect(truncate(state, 1 << 40) == 0)
        let verify = try AssetSyncBinary.run(["verify", manifest, "--dest", sandbox.dest])
        #expect(verify.status == 0, "\(verify.stderr)")
        var status = stat()
        #expect(stat(state, &status) == 0 && status.st_size < 1 << 20)  // rewritten, not grown
    }

    @Test("hard links planted at the lock and at every temporary name leave the linked file outside DEST untouched")
    func hardLinksAreNeverWrittenThrough() throws {
        let sandbox = try Sandbox(serving: ["a.bin": PullNginxTests.random(70_000)])
        let nginx = try NginxServer(root: sandbox.served)
        defer { nginx.stop() }
        let url = try Self.pulledRemotely(sandbox, nginx)
        let victim = sandbox.root.path + "/victim"
        try Data("precious".utf8).write(to: URL(fileURLWithPath: victim))
        let metadata = sandbox.dest + "/.assetsync"
        let changed = PullNginxTests.random(700_000)  // a longer manifest, so a new ETag within the same second
        try sandbox.serve("a.bin", changed)
        try sandbox.serveManifest(base: nginx.baseURL)
        let planted = ["lock", "state.tmp", "manifest.tmp", "manifest.meta.tmp", "partial/" + Self.partialName("a.bin") + ".resume.tmp"]
        for name in planted {
            unlink(metadata + "/" + name)
            #expect(link(victim, metadata + "/" + name) == 0)
        }
        let pull = try AssetSyncBinary.run(["pull", url, "--dest", sandbox.dest])
        #expect(pull.status == 0, "\(pull.stderr)")
        #expect(try sandbox.cached() == sandbox.expected)
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "precious")
        var status = stat()
        #expect(stat(metadata + "/lock", &status) == 0 && status.st_nlink == 1)
        let left = try FileManager.default.contentsOfDirectory(atPath: metadata) + FileManager.default.contentsOfDirectory(atPath: metadata + "/partial")
        #expect(!left.contains { $0.contains(".tmp") })  // the planted names were swept under the lock
    }

    private static func isRegularFile(_ path: String) -> Bool {
        var status = stat()
        return lstat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFREG
    }
}
