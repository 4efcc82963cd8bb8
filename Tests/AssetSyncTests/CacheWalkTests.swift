import Foundation
import Glibc
import Testing
import AssetSyncCache
import AssetSyncModel
@testable import AssetSyncPull
import TestSupport

/// `CacheWalk`: a walk holds the directory it was made for, so a rename meanwhile (a generation
/// recycled while the early walk of it runs) changes nothing, and a directory it cannot open is a
/// failure, never an empty listing that would make every file new.
@Suite struct CacheWalkTests {
    private func paths(_ walk: CacheWalk) -> [String]? {
        guard case .success(let listing) = walk.listing() else { return nil }
        return listing.items.map(\.path)
    }

    @Test("a walk of a directory that is gone is a failure, not an empty listing")
    func aWalkOfAMissingDirectoryFails() throws {
        let directory = try TemporaryDirectory()
        #expect(paths(CacheWalk(path: directory.path + "/gone")) == nil)
    }

    @Test("a walk lists the directory it was made for, even when that is renamed before the walk reads it")
    func aWalkHoldsItsDirectory() throws {
        let directory = try TemporaryDirectory()
        try directory.write("gen-000001/a.bin", "a")
        try directory.write("gen-000001/d/b.bin", "b")
        for _ in 0..<20 {
            let walk = CacheWalk(path: directory.path + "/gen-000001")
            try #require(rename(directory.path + "/gen-000001", directory.path + "/recycle") == 0)
            #expect(paths(walk) == ["a.bin", "d", "d/b.bin"])
            try #require(rename(directory.path + "/recycle", directory.path + "/gen-000001") == 0)
        }
    }

    @Test("a walk through a link at the generation's name fails rather than walking the link's target")
    func aWalkFollowsNoLinkAtItsName() throws {
        let directory = try TemporaryDirectory()
        try directory.write("elsewhere/secret.bin", "s")
        try #require(symlink(directory.path + "/elsewhere", directory.path + "/gen-000001") == 0)
        #expect(paths(CacheWalk(path: directory.path + "/gen-000001")) == nil)
    }

    @Test("a walk that failed gives way to a walk of the run's own cache directory")
    func aFailedWalkFallsBackToTheRoot() throws {
        let directory = try TemporaryDirectory()
        try directory.write("next/a.bin", "a")
        let root = try CacheRoot(resolvedPath: directory.path + "/next")
        let walk = CacheWalk(CacheWalk(path: directory.path + "/gone"), otherwise: root)
        #expect(paths(walk) == ["a.bin"])
        try directory.write("gen/b.bin", "b")
        #expect(paths(CacheWalk(CacheWalk(path: directory.path + "/gen"), otherwise: root)) == ["b.bin"])
    }
}
