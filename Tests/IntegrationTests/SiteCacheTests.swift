import Foundation
import Glibc
import Testing
import TestSupport

/// A fleet's shared site cache, proven with real servers: an nginx origin and an nginx
/// `proxy_cache` with the slice module in front of it (`SiteCache`). Machines pulling through the
/// cache cost the origin one copy of each byte; an interrupted pull resumes through it; a file
/// replaced at the origin reaches the machines despite the stale copy the cache holds.
@Suite struct SiteCacheTests {
    /// Sizes around the cache's 1 MiB slices: several whole slices and a part, one slice exactly,
    /// less than one slice, and a few bytes.
    static let files: [String: Data] = [
        "videos/intro.bin": PullNginxTests.random(9 << 20 + 12_345),
        "packs/level1.zip": PullNginxTests.random(SiteCache.sliceSize),
        "packs/level2.zip": PullNginxTests.random(300_000),
        "config/readme.txt": Data("hello, fleet".utf8),
    ]

    /// The origin's requests, each the slice the cache asked for, grouped by path.
    private static func originSlices(_ log: [AccessLogLine]) -> [String: [String]] {
        Dictionary(grouping: log, by: \.path).mapValues { $0.map { $0.range ?? "(whole file)" }.sorted() }
    }

    /// The `Range` headers a file of `size` bytes costs the origin behind the cache: each slice once.
    private static func expectedSlices(size: Int) -> [String] {
        stride(from: 0, to: size, by: SiteCache.sliceSize).map { "bytes=\($0)-\($0 + SiteCache.sliceSize - 1)" }.sorted()
    }

    @Test func twoMachinesPullingAtOnceCostTheOriginOneCopy() throws {
        let sandbox = try Sandbox(serving: Self.files)
        let site = try SiteCache(serving: sandbox.served)
        defer { site.stop() }
        let manifest = try sandbox.manifest(base: site.base())
        let secondDest = sandbox.root.path + "/second-machine"

        let machines = try [sandbox.dest, secondDest].map { try AssetSyncBinary.start(["pull", manifest, "--dest", $0]) }
        for machine in machines {
            let result = try machine.wait()
            #expect(result.status == 0, "\(result.stderr)")
        }
        #expect(try sandbox.cached() == sandbox.expected)
        #expect(try sandbox.cached(in: secondDest) == sandbox.expected)

        let origin = site.origin.settledAccessLog()
        let slices = Self.originSlices(origin)
        for (path, data) in Self.files {
            #expect(slices["/" + path] == Self.expectedSlices(size: data.count), "origin requests for \(path)")
        }
        #expect(slices.count == Self.files.count)
        #expect(origin.allSatisfy { $0.status == 206 })
        #expect(origin.map(\.bodyBytesSent).reduce(0, +) == Self.files.values.map(\.count).reduce(0, +))
        // Both machines were served: every file reached the cache's clients twice or more.
        let served = Dictionary(grouping: site.cache.settledAccessLog(), by: \.path).mapValues { $0.map(\.bodyBytesSent).reduce(0, +) }
        for (path, data) in Self.files {
            #expect(served["/cache/" + path, default: 0] >= 2 * data.count, "bytes the cache served for \(path)")
        }
    }

    @Test func aPullKilledMidwayResumesThroughTheCacheAndVerifies() throws {
        let big = PullNginxTests.random(12 << 20)
        let sandbox = try Sandbox(serving: ["big/video.bin": big])
        let site = try SiteCache(serving: sandbox.served)
        defer { site.stop() }
        let manifest = try sandbox.manifest(base: site.base(slow: true))

        let killed = try AssetSyncBinary.start(["pull", manifest, "--dest", sandbox.dest])
        let reached = killed.waitForPartial(in: sandbox.dest, bytes: 2 << 20)
        killed.signal(SIGKILL)
        _ = try killed.wait()
        try #require(reached, "the first pull never held 2 MiB in its partial")
        #expect(try sandbox.cached().isEmpty)

        let resumed = try AssetSyncBinary.run(["pull", manifest, "--dest", sandbox.dest])
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(try sandbox.cached() == sandbox.expected)
        // It continued: ranges asked with If-Range from past the 2 MiB kept, answered 206, and fewer
        // bytes than the file (the killed pull's request may be logged late, so it is told apart by its headers).
        let resumes = site.cache.settledAccessLog().filter { $0.ifRange != nil && $0.range != nil }
        let starts = resumes.compactMap { $0.range.flatMap { Int($0.dropFirst("bytes=".count).prefix { $0 != "-" }) } }
        #expect(!resumes.isEmpty && resumes.allSatisfy { $0.status == 206 }, "\(resumes.map(\.raw))")
        #expect(starts.min().map { $0 >= 2 << 20 } == true, "\(starts)")
        #expect(resumes.map(\.bodyBytesSent).reduce(0, +) < big.count)
    }

    @Test func aFileReplacedAtTheOriginIsFetchedFreshPastTheStaleCopy() throws {
        let sandbox = try Sandbox(serving: Self.files)
        let site = try SiteCache(serving: sandbox.served)
        defer { site.stop() }
        let first = try AssetSyncBinary.run(["pull", try sandbox.manifest(base: site.base()), "--dest", sandbox.dest])
        #expect(first.status == 0, "\(first.stderr)")

        // Same size, new bytes and a new mtime (so a new ETag); the cache still holds the old slices.
        let path = "videos/intro.bin"
        let replacement = PullNginxTests.random(Self.files[path]!.count)
        try sandbox.serve(path, replacement)
        var times = [timeval(tv_sec: time(nil) + 60, tv_usec: 0), timeval(tv_sec: time(nil) + 60, tv_usec: 0)]
        #expect(utimes(sandbox.served.appendingPathComponent(path).path, &times) == 0)
        let manifest = try sandbox.manifest(base: site.base())
        site.origin.clearAccessLog()

        let second = try AssetSyncBinary.run(["pull", manifest, "--dest", sandbox.dest])
        #expect(second.status == 0, "\(second.stderr)")
        #expect(try sandbox.cached() == sandbox.expected)
        #expect(second.stderr.contains("CRC-32"), "\(second.stderr)")
        let refetched = site.origin.settledAccessLog()
        #expect(Set(refetched.map(\.path)) == ["/" + path])
        #expect(refetched.map(\.bodyBytesSent).reduce(0, +) >= replacement.count)

        // The fresh copy replaced the stale one in the cache: a third machine gets it without the origin.
        site.origin.clearAccessLog()
        let thirdDest = sandbox.root.path + "/third-machine"
        let third = try AssetSyncBinary.run(["pull", manifest, "--dest", thirdDest])
        #expect(third.status == 0, "\(third.stderr)")
        #expect(try sandbox.cached(in: thirdDest) == sandbox.expected)
        #expect(site.origin.settledAccessLog().isEmpty)
    }
}
