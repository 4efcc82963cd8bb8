import Foundation
import Glibc
import Synchronization
import Testing
import TestSupport

/// The acceptance of `pull --atomic` (issue 13, item 1): a reader looping over DEST while pulls
/// alternate between two versions never sees a mix, and `kill -9` at random moments of such pulls
/// always leaves DEST pointing at a complete, verified generation. With `ASSETSYNC_TORTURE=1`
/// (`make torture`), 50 pulls and 100 kills; otherwise 6 pulls and 4 kills.
@Suite(.serialized) struct AtomicTortureTests {
    /// A thread of this test process that reads every file of DEST through one open of DEST per pass,
    /// as a consumer reading a set must, and counts the passes that saw each version or a mix.
    final class Reader: Sendable {
        let passes = Mutex<(byVersion: [Int], problems: [String])>(([0, 0], []))
        private let stop = Atomic<Bool>(false)
        private let done = DispatchSemaphore(value: 0)

        init(_ versions: TwoVersions) {
            let (dest, contents) = (versions.sandbox.dest, versions.contents)
            let paths = Array(contents[0].keys)
            Thread { [self] in
                while !stop.load(ordering: .relaxed) {
                    let files = TwoVersions.readSet(dest, paths: paths)
                    passes.withLock { passes in
                        if let files, let version = TwoVersions.version(of: files, in: contents) {
                            passes.byVersion[version] += 1
                        } else if passes.problems.count < 10 {
                            passes.problems.append(files == nil ? "a file was missing" : "a mix: \(Self.describe(files!, contents))")
                        }
                    }
                }
                done.signal()
            }.start()
        }

        func finish() -> (byVersion: [Int], problems: [String]) {
            stop.store(true, ordering: .relaxed)
            done.wait()
            return passes.withLock { $0 }
        }

        private static func describe(_ files: [String: Data], _ contents: [[String: Data]]) -> String {
            files.keys.sorted().map { path in
                let version = contents.firstIndex { $0[path] == files[path] }.map { "v\($0 + 1)" } ?? "neither"
                return "\(path)=\(version)"
            }.joined(separator: " ")
        }
    }

    @Test func aReaderNeverSeesAMixOfVersions() throws {
        let pulls = TortureTests.sweepEnabled ? 50 : 6
        let versions = try TwoVersions(count: 24, size: 40_000)
        defer { versions.nginx.stop() }
        let dest = versions.sandbox.dest
        let first = try AssetSyncBinary.run(["pull", versions.manifests[0], "--dest", dest, "--atomic"])
        try #require(first.status == 0, "\(first.stderr)")
        let reader = Reader(versions)
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
        print("torture: atomic kills: \(cases) cases, \(failures.count) failed; seed \(seed)")
        #expect(failures.isEmpty, "seed \(seed): \(failures)")
        #expect(last.status == 0, "\(last.stderr)")
        #expect(try versions.sandbox.cached() == versions.contents[1])
    }
}
