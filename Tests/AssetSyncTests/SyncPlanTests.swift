import Foundation
import Glibc
import Testing
@testable import AssetSyncCLI
@testable import AssetSyncCache
@testable import AssetSyncManifestIO
@testable import AssetSyncModel
@testable import AssetSyncPull
@testable import AssetSyncSystem
@testable import AssetSyncTransfer
import TestSupport

/// The planner on real temporary directories: classification by size and
/// kind, extras, symlinks never followed, contents never needed.
@Suite struct SyncPlanTests {
    private let manifest = Manifest(base: "http://h/", entries: [
        ManifestEntry(path: "new.bin", size: 10, crc32: 1),
        ManifestEntry(path: "same.bin", size: 5, crc32: 2),
        ManifestEntry(path: "resized.bin", size: 7, crc32: 3),
        ManifestEntry(path: "deep/er/file.bin", size: 3, crc32: 4),
        ManifestEntry(path: "linked.bin", size: 4, crc32: 5),
        ManifestEntry(path: "through/link/file.bin", size: 6, crc32: 6),
        ManifestEntry(path: "dir-in-place", size: 1, crc32: 7),
    ])

    private func actions(_ plan: SyncPlan) -> [String: SyncPlan.Action] {
        Dictionary(uniqueKeysWithValues: plan.items.map { ($0.path, $0.action) })
    }

    @Test func classifiesByKindAndSize() throws {
        let dest = try TemporaryDirectory()
        let outside = try TemporaryDirectory()
        try dest.write("same.bin", "12345")
        try dest.write("resized.bin", "1")
        try dest.write("deep/er/file.bin", "abc")
        try dest.write("stray/old.txt", "old")
        try dest.write(".assetsync/partial/x", "ignored")
        try dest.write("dir-in-place/inner", "x")
        // A symlink to a file of the right size outside DEST, and a symlinked directory
        // leading out of DEST: neither is followed.
        try outside.write("four", "1234")
        try outside.write("link/file.bin", "123456")
        try outside.write("secret", "s")
        try FileManager.default.createSymbolicLink(atPath: dest.path + "/linked.bin", withDestinationPath: outside.path + "/four")
        try FileManager.default.createDirectory(atPath: dest.path + "/through", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: dest.path + "/through/link", withDestinationPath: outside.path + "/link")
        try FileManager.default.createSymbolicLink(atPath: dest.path + "/escape", withDestinationPath: outside.path)

        let plan = SyncPlan(manifest: manifest, cache: try CacheScanner.scan(root: dest.path))
        #expect(actions(plan) == [
            "new.bin": .new, "same.bin": .check, "resized.bin": .changed, "deep/er/file.bin": .check,
            "linked.bin": .changed, "through/link/file.bin": .new, "dir-in-place": .changed,
            "stray/old.txt": .extra, "dir-in-place/inner": .extra, "through/link": .extra, "escape": .extra,
        ])
        #expect(plan.items.map(\.path).prefix(7) == manifest.entries.map(\.path)[...])
        #expect(plan.items.first { $0.path == "linked.bin" }?.local?.kind == .symlink)
        #expect(plan.items.first { $0.path == "escape" }?.local?.kind == .symlink)
        #expect(!plan.items.contains { $0.path.contains("secret") })
        #expect(plan.bytesToDownload == 10 + 7 + 4 + 6 + 1)
        #expect(plan.bytes(.check) == 5 + 3)
    }

    @Test func missingCacheIsAllNew() throws {
        let parent = try TemporaryDirectory()
        let plan = SyncPlan(manifest: manifest, cache: try CacheScanner.scan(root: parent.path + "/absent"))
        #expect(plan.items.allSatisfy { $0.action == .new })
        #expect(plan.count(.new) == manifest.entries.count)
    }

    @Test func unreadableFileIsStillClassifiedByItsMetadata() throws {
        let dest = try TemporaryDirectory()
        let file = try dest.write("same.bin", "12345")
        chmod(file, 0)
        let plan = SyncPlan(manifest: manifest, cache: try CacheScanner.scan(root: dest.path))
        #expect(actions(plan)["same.bin"] == .check)
    }

    @Test func cacheDirectoryResolvesASymlinkedRootOnce() throws {
        let real = try TemporaryDirectory()
        let links = try TemporaryDirectory()
        try real.write("same.bin", "12345")
        try FileManager.default.createSymbolicLink(atPath: links.path + "/cache", withDestinationPath: real.path)
        let resolved = try CacheDirectory.resolve(links.path + "/cache").get()
        #expect(resolved == (try CacheDirectory.resolve(real.path).get()))
        #expect(actions(SyncPlan(manifest: manifest, cache: try CacheScanner.scan(root: resolved)))["same.bin"] == .check)
        let file = try real.write("plain", "x")
        #expect(CacheDirectory.resolve(file) == .failure(CacheDirectory.Problem(message: "not a directory", kind: .invalidInput)))
        #expect(try CacheDirectory.resolve(links.path + "/not-yet") == .success(CacheDirectory.resolve(links.path).get() + "/not-yet"))
    }

    @Test func reportsShowEveryItemAndTheTotals() throws {
        let plan = SyncPlan(items: [
            .init(action: .new, path: "a b/new.bin", size: 2048, local: nil),
            .init(action: .changed, path: "c", size: 10, local: LocalItem(kind: .regular, size: 3)),
            .init(action: .check, path: "d", size: 5, local: LocalItem(kind: .regular, size: 5)),
            .init(action: .extra, path: "e\nf", size: 1, local: LocalItem(kind: .regular, size: 1)),
        ])
        #expect(PlanReport.table(plan) == """
            ACTION   SIZE        PATH
            new      2.0 KiB     a b/new.bin
            changed  10 B        c  (cache has 3 B)
            check    5 B         d
            extra    1 B         "e\\nf"

            3 files in the manifest: 1 new, 1 changed, 1 to check; 1 extra in the cache (pull --delete would remove them).
            To download: 2.0 KiB (2058 bytes), plus up to 5 B if files to check fail their CRC.

            """)
        #expect(PlanReport.jsonLines(plan) == """
            {"type":"plan","action":"new","path":"a b/new.bin","size":2048}
            {"type":"plan","action":"changed","path":"c","size":10,"local_kind":"regular","local_size":3}
            {"type":"plan","action":"check","path":"d","size":5}
            {"type":"plan","action":"extra","path":"e\\nf","size":1}
            {"type":"summary","files":3,"new":1,"changed":1,"check":1,"current":0,"extra":1,"bytes_to_download":2058,"bytes_to_check":5,"bytes_reusable":0}

            """)
    }
}
