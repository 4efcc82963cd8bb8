import Foundation
import Glibc
import Testing

/// `assetsync verify`: every file read and proven, problems named, `--repair` fixing them.
@Suite struct VerifyCommandTests {
    @Test func namesMissingAndCorruptFilesAndRepairsThem() throws {
        let sandbox = try Sandbox(serving: [
            "a.bin": PullNginxTests.random(300_000), "dir/b.bin": PullNginxTests.random(1000),
            "c.bin": PullNginxTests.random(5000), "d.bin": PullNginxTests.random(10),
        ])
        let nginx = try NginxServer(root: sandbox.served)
        defer { nginx.stop() }
        let manifest = try sandbox.manifest(base: nginx.baseURL)
        #expect(try AssetSyncBinary.run(["pull", manifest, "--dest", sandbox.dest]).status == 0)

        let clean = try AssetSyncBinary.run(["verify", manifest, "--dest", sandbox.dest])
        #expect(clean.status == 0)
        #expect(clean.stderr.hasPrefix("Verified 4 files: 4 good, 0 missing, 0 corrupt; read 298.8 KiB in "))

        try Data(count: 1000).write(to: URL(fileURLWithPath: sandbox.dest + "/dir/b.bin"))
        try Data("short".utf8).write(to: URL(fileURLWithPath: sandbox.dest + "/c.bin"))
        try FileManager.default.removeItem(atPath: sandbox.dest + "/d.bin")
        let broken = try AssetSyncBinary.run(["verify", manifest, "--dest", sandbox.dest])
        #expect(broken.status == 1)
        let lines = broken.stderr.split(separator: "\n").map(String.init)
        let expectedCRC = TestManifest.crc32Hex(sandbox.expected["dir/b.bin"]!)
        #expect(lines.prefix(3).sorted() == [
            "corrupt  c.bin: size is 5 bytes, expected 5000",
            "corrupt  dir/b.bin: CRC-32 is \(TestManifest.crc32Hex(Data(count: 1000))), expected \(expectedCRC)",
            "missing  d.bin",
        ])
        #expect(lines[3].hasPrefix("Verified 4 files: 1 good, 1 missing, 2 corrupt; read "))
        #expect(lines[4] == "Run 'assetsync verify --repair' (or 'assetsync pull') to download them again.")

        nginx.clearAccessLog()
        let repaired = try AssetSyncBinary.run(["verify", manifest, "--dest", sandbox.dest, "--repair"])
        #expect(repaired.status == 0, "\(repaired.stderr)")
        #expect(try sandbox.cached() == sandbox.expected)
        #expect(Set(nginx.waitForAccessLog(count: 3).map(\.path)) == ["/dir/b.bin", "/c.bin", "/d.bin"])
        #expect(try AssetSyncBinary.run(["verify", manifest, "--dest", sandbox.dest]).status == 0)
    }

    /// verify ignores the state index: a corruption that kept size and mtime is found.
    @Test func findsWhatTheStateIndexCannotSee() throws {
        let sandbox = try Sandbox(serving: ["a.bin": PullNginxTests.random(4096)])
        let nginx = try NginxServer(root: sandbox.served)
        defer { nginx.stop() }
        let manifest = try sandbox.manifest(base: nginx.baseURL)
        #expect(try AssetSyncBinary.run(["pull", manifest, "--dest", sandbox.dest]).status == 0)
        let path = sandbox.dest + "/a.bin"
        var before = stat()
        stat(path, &before)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.write(contentsOf: Data([1, 2, 3]))
        try handle.close()
        var times = [before.st_atim, before.st_mtim]
        utimensat(AT_FDCWD, path, &times, 0)
        #expect(try AssetSyncBinary.run(["pull", manifest, "--dest", sandbox.dest]).status == 0)
        let result = try AssetSyncBinary.run(["verify", manifest, "--dest", sandbox.dest])
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("corrupt  a.bin: CRC-32 is "))
    }
}
