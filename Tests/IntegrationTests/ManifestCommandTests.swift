import Foundation
import Glibc
import Testing
import TestSupport

/// `assetsync manifest`: deterministic, and what it writes round-trips through a pull.
@Suite struct ManifestCommandTests {
    @Test func generatedManifestRoundTripsThroughPull() throws {
        let sandbox = try Sandbox(serving: [
            "videos/intro.mp4": PullNginxTests.random(1 << 20), "packs/level 1 & 2.zip": PullNginxTests.random(70_000),
            "packs/dlc/winter/sons café.zip": PullNginxTests.random(5000), "empty.cfg": Data(), "readme.txt": Data("hi".utf8),
        ])
        // Not part of the published tree: a symlink out of it, and assetsync's own directory.
        let outside = try TemporaryDirectory()
        try FileManager.default.createSymbolicLink(atPath: sandbox.served.path + "/link", withDestinationPath: outside.path)
        try sandbox.writeServed(".assetsync/state", Data("x".utf8))
        let nginx = try NginxServer(root: sandbox.served)
        defer { nginx.stop() }
        let xml = sandbox.root.path + "/generated.xml"
        let made = try AssetSyncBinary.run(["manifest", sandbox.served.path, "--base", nginx.baseURL, "--output", xml])
        #expect(made.status == 0, "\(made.stderr)")
        #expect(made.stderr == "Wrote \(xml): 5 files, 1.1 MiB.\n")
        let text = try String(contentsOfFile: xml, encoding: .utf8)
        #expect(text.contains(#"<file path="packs/level 1 &amp; 2.zip" size="70000" crc32=""#))
        #expect(!text.contains("link") && !text.contains(".assetsync"))
        let paths = text.split(separator: "\n").compactMap { line in line.split(separator: "\"").dropFirst().first.map(String.init) }
        #expect(Array(paths.dropFirst(2)) == paths.dropFirst(2).sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) })

        let again = try AssetSyncBinary.run(["manifest", sandbox.served.path, "--base", nginx.baseURL])
        #expect(again.stdout == text)  // byte-identical on a rerun
        let json = try AssetSyncBinary.run(["manifest", sandbox.served.path, "--base", nginx.baseURL, "--format", "json"])
        #expect(json.status == 0)
        let jsonPath = sandbox.root.path + "/generated.json"
        try json.stdout.write(toFile: jsonPath, atomically: true, encoding: .utf8)
        let planXML = try AssetSyncBinary.run(["plan", xml, "--dest", sandbox.dest, "--json"])
        let planJSON = try AssetSyncBinary.run(["plan", jsonPath, "--dest", sandbox.dest, "--json"])
        #expect(planXML.status == 0 && planXML.stdout == planJSON.stdout)

        let pulled = try AssetSyncBinary.run(["pull", xml, "--dest", sandbox.dest])
        #expect(pulled.status == 0, "\(pulled.stderr)")
        #expect(try sandbox.cached() == sandbox.expected)
    }

    /// `--output` replaces a regular file by a rename: over a FIFO or a link (`/dev/null` and `/dev/stdout`
    /// are such) that would put a file in its place, so anything else there is refused and left as it is.
    @Test func anOutputThatIsNotARegularFileIsLeftAsItIs() throws {
        let sandbox = try Sandbox(serving: ["a.bin": Data("abc".utf8)])
        let fifo = sandbox.root.path + "/fifo"
        try #require(mkfifo(fifo, 0o600) == 0)
        let target = sandbox.root.path + "/target.xml"
        try Data("kept".utf8).write(to: URL(fileURLWithPath: target))
        let link = sandbox.root.path + "/link.xml"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
        for (output, type) in [(fifo, "a FIFO (named pipe)"), (link, "a symbolic link")] {
            let made = try AssetSyncBinary.run(["manifest", sandbox.served.path, "--base", "http://h.invalid/", "--output", output])
            #expect(made.status == 2, "\(made.stderr)")
            #expect(made.stderr.contains("cannot write \"\(output)\": it is \(type), not a regular file, and is left as it is"), "\(made.stderr)")
        }
        var status = stat()
        #expect(lstat(fifo, &status) == 0 && status.st_mode & S_IFMT == S_IFIFO)
        #expect(lstat(link, &status) == 0 && status.st_mode & S_IFMT == S_IFLNK)
        #expect(try String(contentsOfFile: target, encoding: .utf8) == "kept")
    }

    @Test func refusesAFileNoManifestMayHoldAndABadBase() throws {
        let sandbox = try Sandbox(serving: ["ok.bin": Data("1".utf8), "bad\\name.bin": Data("2".utf8)])
        let refused = try AssetSyncBinary.run(["manifest", sandbox.served.path, "--base", "http://h/"])
        #expect(refused.status == 2)
        #expect(refused.stderr == "Error: \"bad\\\\name.bin\" cannot be listed in a manifest: path must not contain a backslash. "
            + "Rename it, or move it out of \"\(sandbox.served.path)\".\n")
        let base = try AssetSyncBinary.run(["manifest", sandbox.served.path, "--base", "file:///etc/"])
        #expect(base.status == 2)
        #expect(base.stderr.hasPrefix("Error: Invalid '--base': base must use http, https or s3, not file: \"file:///etc/\"\n"))
        let missing = try AssetSyncBinary.run(["manifest", sandbox.served.path])
        #expect(missing.status == 2)
        #expect(missing.stderr.hasPrefix("Error: Missing '--base <url>': each file is fetched at base + its path\n"))
        let format = try AssetSyncBinary.run(["manifest", sandbox.served.path, "--base", "http://h/", "--format", "metalink"])
        #expect(format.status == 2)
        #expect(format.stderr.hasPrefix("Error: '--format' must be xml, json or meta4, not 'metalink'\n"), "\(format.stderr)")
        let chunks = try AssetSyncBinary.run(["manifest", sandbox.served.path, "--base", "http://h/", "--format", "meta4", "--chunks"])
        #expect(chunks.status == 2)
        #expect(chunks.stderr.hasPrefix("Error: '--chunks' has no place in a Metalink: write them in an xml or json manifest\n"))
    }

    /// `--chunks` lists the chunks of each file that has more than one, in both encodings, and the
    /// manifest it writes is read back and pulled like any other.
    @Test func chunksAreListedForFilesOfSeveralChunks() throws {
        let sandbox = try Sandbox(serving: ["big.bin": PullNginxTests.random(6 << 20), "small.txt": Data("hi".utf8)])
        let nginx = try NginxServer(root: sandbox.served)
        defer { nginx.stop() }
        for format in ["xml", "json"] {
            let path = sandbox.root.path + "/chunked." + format
            let made = try AssetSyncBinary.run(
                ["manifest", sandbox.served.path, "--base", nginx.baseURL, "--chunks", "--format", format, "--output", path])
            #expect(made.status == 0, "\(made.stderr)")
            let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
            let big = try #require(lines.first { $0.contains("big.bin") })
            #expect(big.contains(format == "xml" ? #" chunks="262144,1048576,4194304:"# : #", "chunks": "262144,1048576,4194304:"#))
            #expect(lines.first { $0.contains("small.txt") }?.contains("chunks") == false)
            let again = try AssetSyncBinary.run(["manifest", sandbox.served.path, "--base", nginx.baseURL, "--chunks", "--format", format])
            #expect(again.stdout == lines.joined(separator: "\n") + "\n")  // byte-identical on a rerun
            let pulled = try AssetSyncBinary.run(["pull", path, "--dest", sandbox.dest + "-" + format])
            #expect(pulled.status == 0, "\(pulled.stderr)")
        }
    }
}
