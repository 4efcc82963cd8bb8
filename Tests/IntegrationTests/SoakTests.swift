import Foundation
import Glibc
import Testing
import TestSupport

/// The soak (`SoakBench`): repeated `pull --delete` of about 300 files through a server
/// that picks a fault at random for every request, with the manifest changing between runs and SIGTERM
/// at random moments; I1–I5 after every run, DEST equal to the last manifest at the end, and no growth of
/// memory or descriptors. The long soak runs with `ASSETSYNC_SOAK=1` (`make soak`), for
/// `ASSETSYNC_SOAK_SECONDS` (600 unless set); a short one runs otherwise. `ASSETSYNC_SOAK_SEED` replays a seed.
@Suite struct SoakTests {
    static let environment = ProcessInfo.processInfo.environment
    static let longEnabled = environment["ASSETSYNC_SOAK"] == "1"
    static let seconds = environment["ASSETSYNC_SOAK_SECONDS"].flatMap(Double.init) ?? 600
    static let seed = environment["ASSETSYNC_SOAK_SEED"].flatMap { UInt64($0) } ?? UInt64.random(in: 0...UInt64.max)

    static func soak(seconds: Double, minimumRuns: Int) throws {
        let bench = try SoakBench(seed: seed, fileCount: 300)
        defer { bench.stop() }
        try bench.soak(seconds: seconds, minimumRuns: minimumRuns)
    }

    /// A few runs, so that the machinery works on every `make test`.
    @Test(.enabled(if: !longEnabled, "the long soak runs instead (ASSETSYNC_SOAK=1)"))
    func short() throws {
        try Self.soak(seconds: 8, minimumRuns: 3)
    }

    /// Ten minutes (ASSETSYNC_SOAK_SECONDS) of runs: `make soak`.
    @Test(.enabled(if: longEnabled, "the long soak runs with ASSETSYNC_SOAK=1 (make soak)"))
    func long() throws {
        try Self.soak(seconds: Self.seconds, minimumRuns: 3)
    }

    // MARK: - The soak's checkers catch what they are for

    /// Every kind is picked, honest about half of the time, and the same seed, path and attempt pick the same.
    @Test func randomFaultsPickEveryKindReproducibly() {
        var seen: [RandomFaults.Kind: Int] = [:]
        for attempt in 1...2000 {
            var random = SeededGenerator.forItem(seed: 7, ["/a.bin", String(attempt)])
            seen[RandomFaults.pick(using: &random), default: 0] += 1
        }
        #expect(Set(seen.keys) == Set(RandomFaults.Kind.allCases), "\(seen)")
        #expect((800...1200).contains(seen[.honest] ?? 0), "\(seen)")
        let picks = { (seed: UInt64) in
            (1...50).map { attempt -> RandomFaults.Kind in
                var random = SeededGenerator.forItem(seed: seed, ["/a.bin", String(attempt)])
                return RandomFaults.pick(using: &random)
            }
        }
        #expect(picks(7) == picks(7))
        #expect(picks(7) != picks(8))
    }

    /// Each fault really breaks the answer: through curl, only an honest one gives the resource's bytes
    /// without an error; with `injecting` off, every answer is honest.
    @Test func randomFaultsBreakTheAnswer() throws {
        let resource = FaultResource.pattern(size: 100_000, seed: 3)
        let faults = RandomFaults(seed: 1, stallSeconds: 2)
        let server = try FaultServer()
        defer { server.stop() }
        server.route("/a.bin", faults.behavior(for: resource))
        var results: [RandomFaults.Kind: Set<Bool>] = [:]
        for _ in 0..<30 {
            let before = faults.counts
            let fetched = try CurlCommand.run([server.url("a.bin"), "--max-time", "1"])
            let kind = try #require(faults.counts.first { $0.value != before[$0.key] ?? 0 }?.key)
            results[kind, default: []].insert(fetched.status == 0 && fetched.httpStatus == 200 && fetched.body == resource.allBytes)
        }
        #expect(results[.honest] == [true], "\(results)")
        for kind in RandomFaults.Kind.allCases where kind != .honest {
            #expect(results[kind] == nil || results[kind] == [false], "\(kind): \(results)")
        }
        #expect(results.count >= 5, "too few kinds in 30 requests: \(results)")
        faults.injecting = false
        #expect(try CurlCommand.run([server.url("a.bin")]).body == resource.allBytes)
    }

    /// Growth from run to run is caught, in memory and in descriptors; the same usage with noise is not,
    /// and neither are too few runs to compare.
    @Test func usageHistoryCatchesGrowth() {
        let history = { (peaks: (Int) -> (resident: Int, descriptors: Int)) in
            UsageHistory(label: "pull", entries: (1...30).map {
                .init(run: $0, requests: 30, peakResidentBytes: peaks($0).resident, peakDescriptors: peaks($0).descriptors)
            })
        }
        let noisy = history { ((16 << 20) + $0 % 5 << 20, 28 + $0 * 7 % 20) }
        #expect(noisy.violations().isEmpty, "\(noisy.violations())")
        let leakingMemory = history { ((16 << 20) + $0 << 20, 28) }
        #expect(leakingMemory.violations().map { $0.hasPrefix("pull: peak RSS grew") } == [true], "\(leakingMemory.violations())")
        let leakingDescriptors = history { (16 << 20, 28 + 2 * $0) }
        #expect(leakingDescriptors.violations().map { $0.hasPrefix("pull: peak open descriptors grew") } == [true],
                "\(leakingDescriptors.violations())")
        let few = UsageHistory(label: "pull", entries: Array(leakingMemory.entries.prefix(8)))
        #expect(!few.comparable && few.violations().isEmpty)
    }

    /// A stray file, a missing one and one with other bytes all differ from the manifest; metadata does not.
    @Test func mismatchesFindEveryDifference() {
        let right = RunInvariants.Fingerprint(size: 3, crc32: "aabbccdd")
        let entries = ["a.bin", "b.bin", "c.bin"].map { TestManifest.File(path: $0, size: 3, crc32: "aabbccdd", url: nil) }
        let exact = ["a.bin": right, "b.bin": right, "c.bin": right, ".assetsync/state": right]
        #expect(SoakBench.mismatches(exact, entries).isEmpty)
        var broken = exact
        broken["b.bin"] = nil
        broken["c.bin"] = RunInvariants.Fingerprint(size: 3, crc32: "00000000")
        broken["stray.bin"] = right
        let found = SoakBench.mismatches(broken, entries)
        #expect(found.count == 3 && found.contains { $0.hasPrefix("'stray.bin'") }, "\(found)")
    }

    @Test func processUsageParsesProcStatus() throws {
        let status = "Name:\tassetsync\nVmHWM:\t   20480 kB\nVmRSS:\t   10240 kB\nSigCgt:\t0000000000004002\n"
        let usage = try #require(ProcessUsage.parse(status: status, openDescriptors: 9))
        #expect(usage == ProcessUsage(residentBytes: 10 << 20, peakResidentBytes: 20 << 20, openDescriptors: 9, caughtSignals: 0x4002))
        #expect(usage.catches(SIGINT) && usage.catches(SIGTERM) && !usage.catches(SIGHUP))
        #expect(ProcessUsage.parse(status: "Name:\tzombie\nSigCgt:\t0\n", openDescriptors: 0) == nil)
        #expect(ProcessUsage.sample(pid: getpid()).map { $0.openDescriptors > 0 && $0.peakResidentBytes >= $0.residentBytes } == true)
    }
}
