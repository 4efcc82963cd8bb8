import Foundation
import Glibc
import Testing
import TestSupport

/// The acceptance of `pull --atomic`: a reader looping over DEST while pulls
/// alternate between two versions never sees a mix, and `kill -9` at random moments of such pulls
/// always leaves DEST pointing at a complete, verified generation. With `ASSETSYNC_TORTURE=1`
/// (`make torture`), 50 pulls and 100 kills; otherwise 6 pulls and 4 kills. The reader is a process of its own.
@Suite(.serialized) struct AtomicTortureTests {
    /// A consumer of DEST in a process of its own (`Fixtures/set_reader.py`): each pass opens DEST
    /// once and reads every file through that descriptor, as a consumer reading a set must, and tells
    /// which version it saw, or the mix.
    final class ReaderProcess {
        private let process = Process()
        private let output = Pipe()
        private let stopFile: String

        init(_ versions: TwoVersions) throws {
            let scratch = versions.sandbox.root.path
            let crcs = versions.contents.map { files in files.mapValues { TestManifest.crc32Hex($0) } }
            let versionsFile = scratch + "/reader-versions.json"
            try JSONSerialization.data(withJSONObject: crcs).write(to: URL(fileURLWithPath: versionsFile))
            stopFile = scratch + "/reader-stop"
            process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
            process.arguments = [
                AssetSyncBinary.packageRoot.appendingPathComponent("Tests/IntegrationTests/Fixtures/set_reader.py").path,
                versions.sandbox.dest, versionsFile, stopFile,
            ]
            process.standardOutput = output
            process.standardInput = FileHandle.nullDevice
            try process.run()
        }

        /// Stops the reader after its current pass; the passes per version, and the first problems.
        func finish() -> (byVersion: [Int], problems: [String]) {
            _ = FileManager.default.createFile(atPath: stopFile, contents: nil)
            let lines = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).split(separator: "\n")
            process.waitUntilExit()
            var byVersion = [0, 0]
            var problems: [String] = []
            for line in lines {
                if line == "v0" || line == "v1" {
                    byVersion[line == "v0" ? 0 : 1] += 1
                } else if line != "end" {
                    problems.append(String(line))
                }
            }
            if lines.last != "end" { problems.append("the reader did not finish: exit \(process.terminationStatus)") }
            return (byVersion, Array(problems.prefix(10)))
        }
    }

    @Test func aReaderNeverSeesAMixOfVersions() throws {
        let pulls = TortureTests.sweepEnabled ? 50 : 6
        let versions = try TwoVersions(count: 24, size: 40_000)
        defer { versions.nginx.stop() }
        let dest = versions.sandbox.dest
        let first = try AssetSyncBinary.run(["pull", versions.manifests[0], "--dest", dest, "--atomic"])
        try #require(first.status == 0, "\(first.stderr)")
        let reader = try ReaderProcess(versions)
        var statuses: [Int32] = []
        for index in 1...pulls {
            statuses.append(try AssetSyncBinary.run(["pull", versions.manifests[index % 2], "--dest", dest]).status)
        }
        let seen = reader.finish()
        print("torture: atomic reader: \(pulls) cases (pulls), passes per version \(seen.byVersion), \(seen.problems.count) mixed")
        #expect(statuses.allSatisfy { $0 == 0 }, "\(statuses)")
        #expect(seen.problems.isEmpty, "\(seen.problems)")
        #expect(seen.byVersion.allSatisfy { $0 > 0 }, "the reader saw both versions: \(seen.byVersion)")
    }

    /// The reader above can fail: over a plain DEST holding half of each version it reports a mix on
    /// every pass, and none of the versions.
    @Test func theReaderReportsAMixedSet() throws {
        let versions = try TwoVersions(count: 4, size: 1000)
        defer { versions.nginx.stop() }
        for (index, (path, data)) in versions.contents[0].sorted(by: { $0.key < $1.key }).enumerated() {
            let bytes = index % 2 == 0 ? data : versions.contents[1][path]!
            let file = URL(fileURLWithPath: versions.sandbox.dest + "/" + path)
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try bytes.write(to: file)
        }
        let reader = try ReaderProcess(versions)
        usleep(200_000)
        let seen = reader.finish()
        #expect(seen.byVersion == [0, 0])
        #expect(!seen.problems.isEmpty && seen.problems.allSatisfy { $0.hasPrefix("mix ") && $0.contains("=v0") && $0.contains("=v1") }, "\(seen.problems)")
    }

    @Test func killedAtRandomMomentsDestShowsACompleteGeneration() throws {
        let cases = TortureTests.sweepEnabled ? 100 : 4
        let seed = ProcessInfo.processInfo.environment["ASSETSYNC_TORTURE_SEED"].flatMap { UInt64($0) } ?? UInt64.random(in: 0...UInt64.max)
        var generator = SeededGenerator(seed: seed)
        let versions = try TwoVersions(count: 8, size: 1 << 20)
        defer { versions.nginx.stop() }
        let dest = versions.sandbox.dest
        // About a second a pull, so that a kill lands in the downloads, the linking or the publishing.
        let pacing = ["--limit-rate", "8M"]
        try #require(try AssetSyncBinary.run(["pull", versions.manifests[0], "--dest", dest, "--atomic"] + pacing).status == 0)
        var failures: [String] = []
        for index in 1...cases {
            let version = index % 2
            let running = try AssetSyncBinary.start(["pull", versions.manifests[version], "--dest", dest] + pacing)
            usleep(UInt32.random(in: 0...1_200_000, using: &generator))
            running.signal(SIGKILL)
            _ = try running.wait()
            let shown = versions.readThroughOneOpen().flatMap(versions.version(of:))
            guard let link = versions.link(), link.hasPrefix("dest.assetsync/gen-"), let shown else {
                failures.append("case \(index): DEST is \(versions.link() ?? "no symlink"), showing \(shown.map { "v\($0 + 1)" } ?? "no whole version")")
                continue
            }
            let verify = try AssetSyncBinary.run(["verify", versions.manifests[shown], "--dest", dest])
            if verify.status != 0 { failures.append("case \(index): verify of v\(shown + 1) in \(link): \(verify.stderr)") }
        }
        let last = try AssetSyncBinary.run(["pull", versions.manifests[1], "--dest", dest])
        let mode = (try? String(contentsOfFile: dest + ".assetsync/.assetsync/generations", encoding: .utf8)) ?? ""
        print("torture: atomic kills: \(cases) cases, \(failures.count) failed; seed \(seed); "
            + "generations of \(mode.contains("clones yes") ? "clones" : "hard links") (TMPDIR picks the file system)")
        #expect(failures.isEmpty, "seed \(seed): \(failures)")
        #expect(last.status == 0, "\(last.stderr)")
        #expect(try versions.sandbox.cached() == versions.contents[1])
    }
}
