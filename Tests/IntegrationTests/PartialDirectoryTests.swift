import Foundation
import Glibc
import Testing
import TestSupport

/// What the built binary does with `.assetsync/partial/` and with the commit of many empty files.
@Suite struct PartialDirectoryTests {
    /// The name assetsync gives an ASCII path's partial: its 64-bit FNV-1a, in hex.
    static func partialName(_ path: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in path.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
        return String(format: "%016llx", hash)
    }

    @Test("a directory named like a partial is swept, and the file is pulled")
    func aDirectoryAtAPartialsNameIsSwept() throws {
        let sandbox = try Sandbox(serving: ["a.bin": PullNginxTests.random(100_000)])
        let nginx = try NginxServer(root: sandbox.served)
        defer { nginx.stop() }
        let manifest = try sandbox.manifest(base: nginx.baseURL)
        let partial = sandbox.dest + "/.assetsync/partial/" + Self.partialName("a.bin")
        // A tree, with a link to a file outside that must survive (links are removed, never followed).
        let outside = sandbox.root.path + "/outside"
        try Data("keep".utf8).write(to: URL(fileURLWithPath: outside))
        for directory in [".part/x/y", ".resume"] {
            try FileManager.default.createDirectory(atPath: partial + directory, withIntermediateDirectories: true)
        }
        try Data("junk".utf8).write(to: URL(fileURLWithPath: partial + ".part/x/y/z"))
        try FileManager.default.createSymbolicLink(atPath: partial + ".part/x/link", withDestinationPath: outside)

        let result = try AssetSyncBinary.run(["pull", manifest, "--dest", sandbox.dest])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try sandbox.cached() == sandbox.expected)
        #expect(Sandbox.kind(sandbox.partialDirectory) == S_IFDIR)
        #expect(sandbox.partialNames() == [])
        #expect(try String(contentsOfFile: outside, encoding: .utf8) == "keep")
    }

    /// `strace` counts the calls that make data and directories durable.
    static let strace = "/usr/bin/strace"

    /// The fsync, fdatasync and syncfs calls of a pull of `files` empty entries spread over `directories` directories.
    private func durabilityCalls(files: Int, directories: Int) throws -> Int {
        let work = try TemporaryDirectory()
        let entries = (0..<files).map { TestManifest.File(path: "d\($0 % directories)/e\($0)", size: 0, crc32: "00000000") }
        // Empty entries need no request: the base is never contacted.
        let manifest = try TestManifest.write(entries, base: "http://127.0.0.1:9/", in: work)
        let trace = work.path + "/trace"
        let result = try AssetSyncBinary.run(
            ["pull", manifest, "--dest", work.path + "/cache"],
            prefix: [Self.strace, "-f", "-qq", "-o", trace, "-e", "trace=fsync,fdatasync,syncfs"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: work.path + "/cache/d0").count == (files + directories - 1) / directories)
        let lines = try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n")
        return lines.filter { $0.contains("fsync(") || $0.contains("fdatasync(") || $0.contains("syncfs(") }.count
    }

    // Needs strace to count system calls; without it there is nothing to measure.
    @Test("committing empty entries costs an fsync per directory, not per file",
          .enabled(if: FileManager.default.isExecutableFile(atPath: strace), "strace is not installed"))
    func emptyEntriesAreCommittedInGroups() throws {
        let few = try durabilityCalls(files: 20, directories: 2)
        let many = try durabilityCalls(files: 400, directories: 2)
        let spread = try durabilityCalls(files: 20, directories: 8)
        #expect(many == few, "20 files: \(few) calls, 400 files in the same directories: \(many)")
        #expect(spread == few + 6, "2 directories: \(few) calls, 8 directories: \(spread)")
    }
}
