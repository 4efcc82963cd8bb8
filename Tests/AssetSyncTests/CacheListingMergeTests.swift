import Foundation
import Glibc
import Testing
@testable import AssetSyncCache
@testable import AssetSyncModel
import TestSupport

/// The cache scan in byte order and its merge-join with a manifest: the plan
/// is what a byte-exact lookup by path gives, whatever the order of the manifest.
@Suite struct CacheListingMergeTests {
    /// Creates a file of `size` bytes at `relative` under `root`, its directories included, by the bytes of the name.
    private func create(_ root: String, _ relative: String, size: Int = 1) throws {
        let parts = relative.split(separator: "/", omittingEmptySubsequences: false)
        var directory = root
        for part in parts.dropLast() {
            directory += "/" + part
            _ = mkdir(directory, 0o755)
        }
        let fd = open(root + "/" + relative, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        try #require(fd >= 0)
        defer { close(fd) }
        try #require(ftruncate(fd, off_t(size)) == 0)
    }

    private func byteOrdered(_ paths: [String]) -> [String] { paths.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) } }

    /// Names where the order of siblings and the order of whole paths differ: "-" and "." sort before "/".
    private let files = ["a/f", "a-b/g", "a-c", "a.txt", "a b/c/d", "ab", "z/y/x/w", "zz", "K", "caf\u{E9}/n", "M/x"]

    @Test("a scan lists every item, directories included, in byte order")
    func scanIsInByteOrder() throws {
        let directory = try TemporaryDirectory()
        for path in files { try create(directory.path, path) }
        try #require(symlink("a", directory.path + "/a-link") == 0)
        let listing = try CacheScanner.scan(root: directory.path)
        let paths = listing.items.map(\.path)
        let expected = files + ["a", "a-b", "a b", "a b/c", "z", "z/y", "z/y/x", "caf\u{E9}", "M", "a-link"]
        #expect(paths.map { Array($0.utf8) } == byteOrdered(expected).map { Array($0.utf8) })
        #expect(listing.twins.isEmpty)
        #expect(listing.item(at: "a")?.kind == .directory)
        #expect(listing.item(at: "a-link")?.kind == .symlink)
        #expect(listing.item(at: "z/y/x/w")?.kind == .regular)
        #expect(listing.item(at: "z/y/x/v") == nil)
    }

    @Test("the plan matches entries and finds extras in one merge-join, sorted manifest or not")
    func planAgreesWithLookupByPath() throws {
        let directory = try TemporaryDirectory()
        for path in files { try create(directory.path, path, size: 2) }
        let listing = try CacheScanner.scan(root: directory.path)
        let listed = ["zz", "a-c", "new/file", "a", "caf\u{E9}/n", "K", "a.txt", "M/x/missing"]  // "a" is a directory
        for paths in [listed, byteOrdered(listed), Array(byteOrdered(listed).reversed())] {
            let manifest = Manifest(base: "http://h/", entries: paths.map { ManifestEntry(path: $0, size: 2, crc32: 0) })
            let plan = SyncPlan(manifest: manifest, cache: listing)
            #expect(Array(plan.items.prefix(paths.count).map(\.path)) == paths)
            #expect(plan.items.prefix(paths.count).map(\.local) == paths.map { listing.item(at: $0) })
            let extras = plan.items.dropFirst(paths.count)
            #expect(extras.allSatisfy { $0.action == .extra })
            #expect(extras.map(\.path) == byteOrdered(files.filter { !paths.contains($0) }))
        }
        let none = SyncPlan(manifest: Manifest(base: "http://h/", entries: []), cache: listing)
        #expect(none.items.map(\.path) == byteOrdered(files))
    }

    @Test("NFC and NFD names, a KELVIN SIGN beside a K, and names that differ in case stay apart")
    func equivalentNamesStayApart() throws {
        let directory = try TemporaryDirectory()
        let (nfc, nfd, kelvin) = ("caf\u{E9}.bin", "cafe\u{301}.bin", "\u{212A}")
        for path in [nfd, nfc, "K", kelvin, "k", "other.bin"] { try create(directory.path, path, size: path.utf8.count) }
        let listing = try CacheScanner.scan(root: directory.path)
        #expect(listing.items.count + listing.twins.count == 6)
        #expect(listing.twins.map { Array($0.path.utf8) } == byteOrdered([nfc, kelvin]).map { Array($0.utf8) })
        for path in [nfd, nfc, "K", kelvin, "k"] { #expect(listing.item(at: path)?.size == Int64(path.utf8.count)) }

        let manifest = Manifest(base: "http://h/", entries: [kelvin, nfc].map { ManifestEntry(path: $0, size: Int64($0.utf8.count), crc32: 0) })
        let plan = SyncPlan(manifest: manifest, cache: listing)
        #expect(plan.items.map(\.action) == [.check, .check, .extra, .extra, .extra, .extra])
        #expect(plan.items.map { Array($0.path.utf8) } == ([kelvin, nfc] + byteOrdered(["K", nfd, "k", "other.bin"])).map { Array($0.utf8) })
    }
}
