import Foundation
import Glibc
import Testing
@testable import AssetSyncCache
@testable import AssetSyncModel
@testable import AssetSyncSystem
import TestSupport

/// Local reuse: which files `ReuseFinder` offers and in what order, and how `LocalCopy` proves a copy.
@Suite struct ReuseFinderTests {
    private static let hello = Data("hello world".utf8)
    private static let helloCRC: UInt32 = 0x0D4A_1185

    private static func record(size: Int64, crc32: UInt32) -> FileProof { FileProof(size: size, mtimeNanoseconds: 1, inode: 2, crc32: crc32) }

    @Test func offersMatchingFilesDestinationFirstAndNeverTheEntrysOwnPath() throws {
        let directory = try TemporaryDirectory()
        let root = try CacheRoot(resolvedPath: directory.path + "/dest")
        try FileManager.default.createDirectory(atPath: directory.path + "/other", withIntermediateDirectories: true)
        let destination = ReuseSource(destination: root, index: StateIndex(records: [
            "new.bin": Self.record(size: 11, crc32: Self.helloCRC),
            "old/z.bin": Self.record(size: 11, crc32: Self.helloCRC),
            "old/a.bin": Self.record(size: 11, crc32: Self.helloCRC),
            "same-size.bin": Self.record(size: 11, crc32: 1),
            "same-crc.bin": Self.record(size: 12, crc32: Self.helloCRC),
        ]), recordsVouch: true)
        let other = try #require(ReuseSource(otherCacheAt: directory.path + "/other"))
        let entry = ManifestEntry(path: "new.bin", size: 11, crc32: Self.helloCRC)
        let finder = ReuseFinder(sources: [destination, other], for: [entry])
        #expect(finder.candidates(for: entry).map(\.displayPath) == ["old/a.bin", "old/z.bin"])
        #expect(finder.candidates(for: ManifestEntry(path: "x", size: 5, crc32: 5)).isEmpty)
        #expect(ReuseFinder(sources: [destination], for: [ManifestEntry(path: "x", size: 5, crc32: 5)]).isEmpty)
        #expect(ReuseSource(otherCacheAt: directory.path + "/missing") == nil)
    }

    /// An entry with a SHA-256 alone (a Metalink's) finds the files recorded with that size and
    /// SHA-256, whatever their CRC-32; one with a CRC-32 still goes by it.
    @Test func anEntryWithASHA256AloneFindsTheFilesRecordedWithIt() throws {
        let directory = try TemporaryDirectory()
        let root = try CacheRoot(resolvedPath: directory.path + "/dest")
        let digest = SHA256Digest(words: (7, 7, 7, 7))
        let other = SHA256Digest(words: (8, 8, 8, 8))
        func record(_ crc32: UInt32?, _ sha256: SHA256Digest?) -> FileProof {
            FileProof(size: 11, mtimeNanoseconds: 1, inode: 2, crc32: crc32, sha256: sha256)
        }
        let destination = ReuseSource(destination: root, index: StateIndex(records: [
            "both.bin": record(Self.helloCRC, digest),
            "sha-only.bin": record(nil, digest),
            "crc-only.bin": record(Self.helloCRC, nil),
            "other-sha.bin": record(nil, other),
        ]), recordsVouch: true)
        let strong = ManifestEntry(path: "new.bin", size: 11, crc32: nil, sha256: digest)
        #expect(ReuseFinder(sources: [destination], for: [strong]).candidates(for: strong).map(\.path) == ["both.bin", "sha-only.bin"])
        let weak = ManifestEntry(path: "new.bin", size: 11, crc32: Self.helloCRC)
        #expect(ReuseFinder(sources: [destination], for: [weak]).candidates(for: weak).map(\.path) == ["both.bin", "crc-only.bin"])
        // Many entries against few records takes the other branch, to the same answer.
        let many = [strong] + (0..<10).map { ManifestEntry(path: "f\($0)", size: Int64(100 + $0), crc32: UInt32($0)) }
        #expect(ReuseFinder(sources: [destination], for: many).candidates(for: strong).map(\.path) == ["both.bin", "sha-only.bin"])
    }

    @Test func anotherCacheIsReadThroughItsStateIndexAfterTheDestination() throws {
        let directory = try TemporaryDirectory()
        let entry = ManifestEntry(path: "b.bin", size: 11, crc32: Self.helloCRC)
        let otherRoot = try CacheRoot(resolvedPath: directory.path + "/other")
        try StateIndex(records: ["x/a.bin": Self.record(size: 11, crc32: Self.helloCRC)]).save(to: otherRoot)
        let root = try CacheRoot(resolvedPath: directory.path + "/dest")
        let destination = ReuseSource(destination: root, index: StateIndex(records: ["a.bin": Self.record(size: 11, crc32: Self.helloCRC)]), recordsVouch: true)
        let other = try #require(ReuseSource(otherCacheAt: directory.path + "/other"))
        let finder = ReuseFinder(sources: [destination, other], for: [entry])
        #expect(finder.candidates(for: entry).map(\.displayPath) == ["a.bin", directory.path + "/other/x/a.bin"])
        // The other cache's own paths are sources even where they equal the entry's.
        let same = ManifestEntry(path: "x/a.bin", size: 11, crc32: Self.helloCRC)
        #expect(ReuseFinder(sources: [other], for: [same]).candidates(for: same).map(\.path) == ["x/a.bin"])
    }

    @Test func manyEntriesAgainstAFewRecordsFindTheSameCandidatesInTheSameOrder() throws {
        let directory = try TemporaryDirectory()
        let root = try CacheRoot(resolvedPath: directory.path + "/dest")
        let destination = ReuseSource(destination: root, index: StateIndex(records: [
            "old/z.bin": Self.record(size: 11, crc32: Self.helloCRC),
            "old/a.bin": Self.record(size: 11, crc32: Self.helloCRC),
            "other.bin": Self.record(size: 7, crc32: 7),
        ]), recordsVouch: true)
        let wanted = ManifestEntry(path: "new.bin", size: 11, crc32: Self.helloCRC)
        let alone = ManifestEntry(path: "alone.bin", size: 12, crc32: 12)
        let empty = ManifestEntry(path: "empty.bin", size: 0, crc32: 0)
        // Fewer entries than records, then more: the finder indexes the smaller side, with one answer.
        let few = ReuseFinder(sources: [destination], for: [wanted])
        let many = ReuseFinder(sources: [destination], for: [alone, wanted, empty] + (0..<5).map { ManifestEntry(path: "n\($0)", size: 1, crc32: UInt32($0)) })
        for finder in [few, many] {
            #expect(finder.candidates(for: wanted).map(\.displayPath) == ["old/a.bin", "old/z.bin"])
            #expect(finder.candidates(for: alone).isEmpty && !finder.isEmpty)
        }
        #expect(many.candidates(for: ManifestEntry(path: "o", size: 7, crc32: 7)).isEmpty, "a record no entry wants is not kept")
        #expect(ReuseFinder(sources: [ReuseSource(destination: root, index: StateIndex(), recordsVouch: true)], for: [wanted]).isEmpty)
    }

    /// Copies `content` placed at `path` in another cache (recorded as the hello bytes) into a partial; returns the method and the partial.
    private func copy(_ content: Data?, at path: String = "a.bin", link: String? = nil) throws -> (LocalCopy.Method?, PartialFile, TemporaryDirectory) {
        let directory = try TemporaryDirectory()
        let other = directory.path + "/other"
        try FileManager.default.createDirectory(atPath: other + "/sub", withIntermediateDirectories: true)
        if let content { try content.write(to: URL(fileURLWithPath: other + "/" + path)) }
        if let link { try FileManager.default.createSymbolicLink(atPath: other + "/" + path, withDestinationPath: link) }
        let root = try CacheRoot(resolvedPath: directory.path + "/dest")
        let entry = ManifestEntry(path: "b.bin", size: 11, crc32: Self.helloCRC)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 4, alignment: 16)  // several reads per file
        defer { buffer.deallocate() }
        let partial = try PartialFile(root: root, entry: entry, name: "p", buffer: buffer, resumable: { _ in false })
        let source = try #require(ReuseSource(otherCacheAt: other))
        let candidate = ReuseCandidate(source: source, path: path, record: Self.record(size: 11, crc32: Self.helloCRC))
        return (LocalCopy.fill(partial, from: candidate, buffer: buffer), partial, directory)
    }

    @Test func aCopyIsProvenByTheCRCOfThePartialsBytes() throws {
        let (method, partial, directory) = try copy(Self.hello)
        defer { withExtendedLifetime(directory) {} }
        #expect(method != nil)
        #expect(partial.offset == 11 && partial.crc.value == Self.helloCRC)
        #expect(Committer.commit([partial]) == [nil])
        #expect(FileManager.default.contents(atPath: partial.root.path + "/b.bin") == Self.hello)
    }

    @Test func otherBytesOfTheSameSizeAreNotReused() throws {
        let (method, partial, directory) = try copy(Data("hello World".utf8))
        defer { withExtendedLifetime(directory) {} }
        #expect(method == nil)
        #expect(partial.offset == 0)
        var status = stat()
        #expect(fstat(partial.fd, &status) == 0 && status.st_size == 0)
    }

    @Test func noSymlinkIsFollowedToTheSource() throws {
        let outside = try TemporaryDirectory()
        try Self.hello.write(to: URL(fileURLWithPath: outside.path + "/a.bin"))
        #expect(try copy(nil, link: outside.path + "/a.bin").0 == nil)
        // A symlinked directory on the way is refused as well.
        let root = try CacheRoot(resolvedPath: outside.path + "/dest2")
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64, alignment: 16)
        defer { buffer.deallocate() }
        let partial = try PartialFile(root: root, entry: ManifestEntry(path: "b.bin", size: 11, crc32: Self.helloCRC), name: "q", buffer: buffer,
            resumable: { _ in false })
        let linkedDirectory = try TemporaryDirectory()
        try FileManager.default.createSymbolicLink(atPath: linkedDirectory.path + "/d", withDestinationPath: outside.path)
        let source = try #require(ReuseSource(otherCacheAt: linkedDirectory.path))
        let candidate = ReuseCandidate(source: source, path: "d/a.bin", record: Self.record(size: 11, crc32: Self.helloCRC))
        #expect(LocalCopy.fill(partial, from: candidate, buffer: buffer) == nil)
    }

    @Test func aFIFOIsNeverOpenedAsASource() throws {
        let directory = try TemporaryDirectory()
        #expect(mkfifo(directory.path + "/a.bin", 0o600) == 0)
        let source = try #require(ReuseSource(otherCacheAt: directory.path))
        #expect(source.openFile("a.bin") == nil)
    }

    @Test func aSourceOpensOnlyFilesBeneathItsDirectory() throws {
        let directory = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: directory.path + "/cache/sub", withIntermediateDirectories: true)
        try Self.hello.write(to: URL(fileURLWithPath: directory.path + "/cache/sub/a.bin"))
        try Self.hello.write(to: URL(fileURLWithPath: directory.path + "/dot"))
        let source = try #require(ReuseSource(otherCacheAt: directory.path + "/cache"))
        let inside = try #require(source.openFile("sub/a.bin"))
        close(inside)
        // Each of these would reach a file (or the same one) by a way that does not only go down.
        for path in ["../dot", "sub/../../dot", "sub/../sub/a.bin", "./sub/a.bin", "sub//a.bin", "sub/./a.bin", directory.path + "/dot"] {
            #expect(source.openFile(path) == nil, "\(path)")
        }
    }
}
