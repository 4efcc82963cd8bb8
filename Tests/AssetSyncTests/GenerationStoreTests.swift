import Foundation
import Glibc
import Testing
@testable import AssetSyncCache
import AssetSyncModel
import AssetSyncSystem
import TestSupport

/// `GenerationStore` on its own: building, publishing, recycling with its spare tree, pruning around
/// a held lock, rolling back and going plain again, without a pull (AtomicPullTests runs the whole).
@Suite struct GenerationStoreTests {
    static func write(_ text: String, to path: String) throws {
        try FileManager.default.createDirectory(atPath: PathName.directory(of: path), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    }

    static func read(_ path: String) -> String? {
        (try? Data(contentsOf: URL(fileURLWithPath: path))).map { String(decoding: $0, as: UTF8.self) }
    }

    static func inode(_ path: String) -> ino_t? {
        var status = stat()
        return lstat(path, &status) == 0 ? status.st_ino : nil
    }

    static func exists(_ path: String) -> Bool { inode(path) != nil }

    /// Points DEST at the generation before the current one, as `rollback` does; nil when there is none.
    static func rollBack(_ store: GenerationStore) throws -> String? {
        guard let previous = try store.previous() else { return nil }
        try store.rollBack(to: previous)
        return previous
    }

    /// Prunes, asking again for up to 10 s while nothing could be removed: a process another test
    /// spawns meanwhile holds a copy of every descriptor, the lock's too, between its fork and its exec.
    static func pruneOnceFree(_ store: GenerationStore, keep: Int) throws -> [String] {
        let deadline = MonotonicClock.now() + 10
        while true {
            let removed = try store.prune(keep: keep)
            if !removed.isEmpty || MonotonicClock.now() > deadline { return removed }
            usleep(20_000)
        }
    }

    /// Builds the next generation, applies `change` to it (paths to new text, nil to remove), publishes it.
    @discardableResult
    static func publish(_ store: GenerationStore, keep: Int = 2, _ change: [String: String?]) throws -> String {
        let next = try store.prepareBuild(keep: keep)
        for (path, text) in change {
            unlink(next + "/" + path)
            if let text { try write(text, to: next + "/" + path) }
        }
        let name = try store.publish(try CacheRoot(resolvedPath: next))
        _ = try store.prune(keep: keep)
        return name
    }

    @Test func generationsShareUnchangedFilesAndDestAlwaysShowsAWholeOne() throws {
        let directory = try TemporaryDirectory()
        let dest = directory.path + "/dest"
        let store = try GenerationStore(dest: dest)
        #expect(store.current() == nil)
        #expect(try Self.publish(store, ["a": "a1", "d/b": "b1"]) == "gen-000001")
        #expect(store.current() == "gen-000001")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: dest) == "dest.assetsync/gen-000001")
        #expect(try Self.publish(store, ["d/b": "b2"]) == "gen-000002")
        #expect(Self.read(dest + "/a") == "a1" && Self.read(dest + "/d/b") == "b2")
        #expect(Self.inode(dest + ".assetsync/gen-000001/a") == Self.inode(dest + ".assetsync/gen-000002/a"))
        #expect(Self.read(dest + ".assetsync/gen-000001/d/b") == "b1")
        #expect(!Self.exists(dest + ".assetsync/next"))
    }

    @Test func recyclingSetsAsideWhatItReplacesAndPublishingDropsIt() throws {
        let directory = try TemporaryDirectory()
        let dest = directory.path + "/dest"
        let store = try GenerationStore(dest: dest)
        try Self.publish(store, ["a": "a1", "d/b": "b1", "d/only1": "o1"])
        try StateIndex(records: ["d/b": FileProof(size: 2, mtimeNanoseconds: 1, inode: 1, crc32: 7)])
            .save(to: CacheRoot(resolvedPath: dest + ".assetsync/gen-000001"))
        try Self.publish(store, ["d/b": "b2", "d/only1": nil])
        // The third build recycles gen-000001 (beyond --keep 2): what differs from gen-000002 goes to spare/.
        let next = try store.prepareBuild(keep: 2)
        #expect(!Self.exists(dest + ".assetsync/gen-000001"))
        #expect(Self.read(next + "/d/b") == "b2" && !Self.exists(next + "/d/only1"))
        #expect(Self.inode(next + "/a") == Self.inode(dest + ".assetsync/gen-000002/a"))
        let spare = dest + ".assetsync/spare"
        #expect(Self.read(spare + "/d/b") == "b1" && Self.read(spare + "/d/only1") == "o1")
        #expect(!Self.exists(spare + "/a"), "unchanged files are not set aside")
        #expect(StateIndex.load(cacheAt: spare).records["d/b"]?.crc32 == 7, "the recycled generation's index, saved before it was replaced")
        #expect(store.reuseSources().map(\.path) == [spare], "gen-000002 is current: next/ is made from it")
        _ = try store.publish(try CacheRoot(resolvedPath: next))
        #expect(!Self.exists(spare))
        #expect(try store.generations() == ["gen-000002", "gen-000003"])
    }

    @Test func pruningSkipsAHeldGenerationAndRollbackGoesBackOne() throws {
        let directory = try TemporaryDirectory()
        let dest = directory.path + "/dest"
        let store = try GenerationStore(dest: dest)
        try Self.publish(store, keep: 3, ["a": "1"])
        try Self.publish(store, keep: 3, ["a": "2"])
        do {
            let held = try CacheLock(root: CacheRoot(resolvedPath: dest + ".assetsync/gen-000001"), wait: 0)
            try Self.publish(store, keep: 1, ["a": "3"])
            #expect(try store.generations() == ["gen-000001", "gen-000003"], "gen-000001 is held, gen-000002 pruned")
            withExtendedLifetime(held) {}
        }
        #expect(try Self.pruneOnceFree(store, keep: 1) == ["gen-000001"], "gen-000001 is no longer held")
        try Self.publish(store, keep: 3, ["a": "4"])
        // With --keep 3 a build leaves the generation before the current one whole: rollback drops the build.
        _ = try store.prepareBuild(keep: 3)
        #expect(try Self.rollBack(store) == "gen-000003")
        #expect(Self.read(dest + "/a") == "3")
        #expect(!Self.exists(dest + ".assetsync/next"))
        #expect(try Self.rollBack(store) == nil)
        // With --keep 2 a build recycles it (rollback has nothing left before; see docs/atomicity.md).
        try Self.publish(store, keep: 2, ["a": "5"])
        _ = try store.prepareBuild(keep: 2)
        #expect(try Self.rollBack(store) == nil)
        #expect(Self.read(dest + "/a") == "5")
    }

    @Test func goingPlainKeepsTheCurrentFilesAndForgetsTheMode() throws {
        let directory = try TemporaryDirectory()
        let dest = directory.path + "/dest"
        let store = try GenerationStore(dest: dest)
        try store.remember(GenerationStore.Mode(keep: 2))
        #expect(GenerationStore.rememberedMode(dest) == GenerationStore.Mode(keep: 2, clonesFiles: false))
        try Self.publish(store, ["a": "1", "d/b": "b"])
        try Self.publish(store, ["a": "2"])
        try store.makePlain()
        #expect(Self.read(dest + "/a") == "2" && Self.read(dest + "/d/b") == "b")
        var status = stat()
        #expect(lstat(dest, &status) == 0 && status.st_mode & S_IFMT == S_IFDIR)
        #expect(GenerationStore.rememberedMode(dest) == nil)
        #expect(try store.generations().isEmpty)
    }

    /// Retiring a plain DEST's tree into its first generation: what appeared or was replaced after the
    /// build is carried over, what the generation has is dropped, and a clash of kinds stays in
    /// `retired/`, named, until the user moves it; the next run carries it then.
    @Test func aPlainDestsOldTreeIsCarriedIntoItsFirstGeneration() throws {
        let directory = try TemporaryDirectory()
        let dest = directory.path + "/dest"
        try Self.write("mine", to: dest + "/mine.txt")
        try Self.write("old extra", to: dest + "/extra.txt")
        let store = try GenerationStore(dest: dest)
        let next = try store.prepareBuild(keep: 2)
        #expect(Self.inode(next + "/mine.txt") == Self.inode(dest + "/mine.txt"))
        // After the build, in the plain DEST: a new file, a new directory, an extra replaced, and a
        // file where the generation will have a directory.
        try Self.write("new", to: dest + "/new.txt")
        try Self.write("deep", to: dest + "/d1/d2/deep.txt")
        unlink(dest + "/extra.txt")
        try Self.write("new extra", to: dest + "/extra.txt")
        try Self.write("a file", to: dest + "/clash")
        try Self.write("the pull's", to: next + "/clash/inside.bin")
        #expect(try store.publish(try CacheRoot(resolvedPath: next)) == "gen-000001")
        #expect(store.retirementFailure == nil)
        #expect(Self.read(dest + "/mine.txt") == "mine" && Self.read(dest + "/new.txt") == "new")
        #expect(Self.read(dest + "/d1/d2/deep.txt") == "deep" && Self.read(dest + "/extra.txt") == "new extra")
        #expect(Self.read(dest + "/clash/inside.bin") == "the pull's")
        #expect(store.notCarried == ["clash"])
        #expect(Self.read(dest + ".assetsync/retired/clash") == "a file")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dest + ".assetsync/retired") == ["clash"])
        // Still there on the next run, until the user clears the way.
        try store.finishInterruptedSteps()
        #expect(store.notCarried == ["clash"])
        try FileManager.default.removeItem(atPath: dest + "/clash")
        try store.finishInterruptedSteps()
        #expect(store.notCarried.isEmpty)
        #expect(Self.read(dest + "/clash") == "a file")
        #expect(!Self.exists(dest + ".assetsync/retired"))
    }

    /// A switch to plain cut short is recorded (`leaving`), and finishing it twice is finishing it once.
    @Test func goingPlainIsRecordedUntilItIsDone() throws {
        let directory = try TemporaryDirectory()
        let dest = directory.path + "/dest"
        let store = try GenerationStore(dest: dest)
        try store.remember(GenerationStore.Mode(keep: 3))
        try Self.publish(store, keep: 3, ["a": "1"])
        try store.remember(GenerationStore.Mode(keep: 3, leaving: true))
        #expect(GenerationStore.rememberedMode(dest)?.leaving == true)
        #expect(GenerationStore.generationToWalkEarly(of: dest) == nil, "no early walk of a store being left")
        try store.makePlain()
        try store.makePlain()
        #expect(Self.read(dest + "/a") == "1")
        #expect(GenerationStore.rememberedMode(dest) == nil)
    }

    /// What a pull may walk before it holds the lock: the published generation of an atomic DEST (its
    /// mode records no clones), only while no interrupted build is left to resume
    /// (whose `next/` holds more than that generation's names); and the build says whether it stands.
    @Test func thePublishedGenerationIsWalkedEarlyOnlyWhenTheNextBuildHasItsInodes() throws {
        let directory = try TemporaryDirectory()
        let dest = directory.path + "/dest"
        #expect(GenerationStore.generationToWalkEarly(of: dest) == nil, "no DEST yet")
        try FileManager.default.createDirectory(atPath: dest, withIntermediateDirectories: true)
        #expect(GenerationStore.generationToWalkEarly(of: dest) == nil, "a plain DEST")
        let store = try GenerationStore(dest: dest)
        try store.remember(GenerationStore.Mode(keep: 2))
        try Self.publish(store, ["a": "1"])
        let early = try #require(GenerationStore.generationToWalkEarly(of: dest))
        #expect(early.name == "gen-000001" && early.path == dest + ".assetsync/gen-000001")
        let next = try store.prepareBuild(keep: 2)
        // Made afresh: of hard links to the published generation, or of clones (new inodes) where the file system has reflinks.
        #expect(store.buildHasInodesOf == (store.clonesFiles ? nil : "gen-000001"))
        #expect(GenerationStore.generationToWalkEarly(of: dest) == nil, "next/ is left to resume")
        try Self.write("committed", to: next + "/b")  // as an interrupted pull would leave it
        #expect(try store.prepareBuild(keep: 2) == next)
        #expect(Self.read(next + "/b") == "committed", "resumed as it is")
        #expect(store.buildHasInodesOf == nil, "a resumed next/ holds more than the generation's names")
    }

    /// Saves a state index for the cache directory at `path` that records each of `paths` as it is now.
    static func record(_ paths: [String], in path: String) throws {
        var records: [String: FileProof] = [:]
        for relative in paths {
            var status = stat()
            try #require(lstat(path + "/" + relative, &status) == 0)
            let bytes = Array(try #require(read(path + "/" + relative)).utf8)
            var crc = CRC32()
            bytes.withUnsafeBytes { crc.update($0) }
            records[relative] = FileProof(LocalItem(status), crc32: crc.value)
        }
        try StateIndex(records: records).save(to: CacheRoot(resolvedPath: path))
    }

    /// On a file system with reflinks, a generation's files are clones of the current one's: their own
    /// inodes, so an edit in place through DEST changes no other generation. Each clone takes over its
    /// source's record; recycling keeps a file whose record gives the current bytes (with its own
    /// record) and replaces the others, extras without a record included; a recycle that changed
    /// nothing leaves `next/` with the recycled generation's inodes, which is what the early walk read.
    @Test(.enabled(if: ReflinkDisk.canMount, Comment(rawValue: ReflinkDisk.requirement)))
    func onAFileSystemWithReflinksGenerationsAreClones() throws {
        let disk = try ReflinkDisk(megabytes: 320)
        let dest = disk.path + "/dest"
        let store = try GenerationStore(dest: dest)
        try store.remember(GenerationStore.Mode(keep: 2))
        try Self.publish(store, ["a": "a1", "d/b": "b1", "extra": "x1"])
        try Self.record(["a", "d/b"], in: dest + ".assetsync/gen-000001")
        // Clones are not known yet: the published generation, as for hard links (the build will say it was not).
        #expect(GenerationStore.generationToWalkEarly(of: dest)?.name == "gen-000001")

        // Made afresh: every file a clone, its record carried over to the clone's inode.
        var next = try store.prepareBuild(keep: 2)
        try #require(store.clonesFiles)
        #expect(GenerationStore.rememberedMode(dest) == GenerationStore.Mode(keep: 2, clonesFiles: true))
        #expect(store.buildHasInodesOf == nil)
        for path in ["a", "d/b", "extra"] {
            #expect(Self.inode(next + "/" + path) != Self.inode(dest + "/" + path), "\(path)")
            #expect(Self.read(next + "/" + path) == Self.read(dest + "/" + path), "\(path)")
        }
        #expect(store.buildIndex == StateIndex.load(cacheAt: next), "the pull is handed the index next/ holds")
        var records = StateIndex.load(cacheAt: next).records
        var status = stat()
        #expect(lstat(next + "/d/b", &status) == 0 && records["d/b"]?.describes(LocalItem(status)) == true)
        #expect(records["extra"] == nil)
        try Self.write("a2", to: next + "/a")
        try Self.write("x2", to: next + "/extra")
        try Self.record(["a", "d/b"], in: next)
        _ = try store.publish(try CacheRoot(resolvedPath: next))

        // An edit in place through DEST stays in the published generation.
        let edit = try FileHandle(forWritingTo: URL(fileURLWithPath: dest + "/d/b"))
        try edit.write(contentsOf: Data("B".utf8))
        try edit.close()
        #expect(Self.read(dest + ".assetsync/gen-000001/d/b") == "b1")
        try Self.write("b1", to: dest + "/d/b")
        try Self.record(["a", "d/b"], in: dest + ".assetsync/gen-000002")

        // Recycling gen-000001: `a` and the unrecorded extra differ and are cloned anew, `d/b` stays.
        #expect(GenerationStore.generationToWalkEarly(of: dest)?.name == "gen-000001")
        let keptInode = Self.inode(dest + ".assetsync/gen-000001/d/b")
        next = try store.prepareBuild(keep: 2)
        #expect(store.buildHasInodesOf == nil, "files were replaced")
        #expect(Self.read(next + "/a") == "a2" && Self.read(next + "/extra") == "x2" && Self.read(next + "/d/b") == "b1")
        #expect(Self.inode(next + "/d/b") == keptInode)
        #expect(Self.inode(next + "/a") != Self.inode(dest + "/a"))
        #expect(Self.read(dest + ".assetsync/spare/a") == "a1" && Self.read(dest + ".assetsync/spare/extra") == "x1")
        #expect(store.buildIndex == StateIndex.load(cacheAt: next))
        records = StateIndex.load(cacheAt: next).records
        for path in ["a", "d/b"] {
            #expect(lstat(next + "/" + path, &status) == 0 && records[path]?.describes(LocalItem(status)) == true, "\(path)")
        }
        #expect(store.reuseSources().map(\.path).contains(dest + ".assetsync/gen-000002"), "the current generation, to clone back an edited file")
        _ = try store.publish(try CacheRoot(resolvedPath: next))
        _ = try store.prune(keep: 2)
        // An extra is cloned anew by every build; without one, the next build can change nothing.
        unlink(dest + "/extra")
        unlink(dest + ".assetsync/gen-000002/extra")

        // Recycling gen-000002, which holds the current bytes everywhere: nothing changes, and next/
        // has gen-000002's inodes, as the early walk expected.
        #expect(GenerationStore.generationToWalkEarly(of: dest)?.name == "gen-000002")
        next = try store.prepareBuild(keep: 2)
        #expect(store.buildHasInodesOf == "gen-000002")
        #expect(store.buildIndex == StateIndex.load(cacheAt: next) && store.buildIndex?.entries.count == 2)
        #expect(Self.read(next + "/a") == "a2" && Self.read(next + "/d/b") == "b1" && !Self.exists(next + "/extra"))
    }

    @Test func aDestNamedWithoutItsOwnNameIsRefused() {
        for dest in [".", "..", "/", "x/.."] {
            if case .success = GenerationStore.locate(dest) { Issue.record("\(dest) was accepted") }
        }
    }
}
