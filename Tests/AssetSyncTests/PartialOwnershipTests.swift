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

/// Partials have one writer, commits take only the bytes on disk, and paths that
/// differ only in Unicode normalization are one path to every keyed structure.
@Suite struct PartialOwnershipTests {
    private let entry = ManifestEntry(path: "packs/a.zip", size: 11, crc32: 0x0D4A_1185)  // CRC-32 of "hello world"
    private static let nfc = "caf\u{E9}.bin"
    private static let nfd = "cafe\u{301}.bin"

    /// Writes `text` at exactly the bytes of `path` (no Foundation path handling in between).
    private func create(_ path: String, _ text: String) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0o644)
        try #require(fd >= 0)
        defer { close(fd) }
        #expect(write(fd, text, text.utf8.count) == text.utf8.count)
    }

    private func withBuffer<R>(_ body: (UnsafeMutableRawBufferPointer) throws -> R) rethrows -> R {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 4096, alignment: 16)
        defer { buffer.deallocate() }
        return try body(buffer)
    }

    @Test("a partial being written cannot be opened (or truncated) by a second writer")
    func aSecondWriterIsRefusedAndTruncatesNothing() throws {
        let directory = try TemporaryDirectory()
        let root = try CacheRoot(resolvedPath: directory.path + "/cache")
        try withBuffer { buffer in
            let name = PartialFile.name(for: entry.path)
            let writer = try PartialFile(root: root, entry: entry, name: name, buffer: buffer, resumable: ResumeRecord.canResume)
            try Array("hello".utf8).withUnsafeBytes { try writer.append($0) }
            // A second root, as a second process would open it, ignoring DEST's lock.
            let other = try CacheRoot(resolvedPath: directory.path + "/cache")
            #expect(throws: CacheError.partialInUse(path: writer.displayPath)) {
                try PartialFile(root: other, entry: entry, name: name, buffer: buffer, resumable: ResumeRecord.canResume)
            }
            var status = stat()
            #expect(fstat(writer.fd, &status) == 0 && status.st_size == 5)
            try Array(" world".utf8).withUnsafeBytes { try writer.append($0) }
            try Committer.verify(writer)
            #expect(Committer.commit([writer]) == [nil])
        }
        #expect(try String(contentsOfFile: directory.path + "/cache/packs/a.zip", encoding: .utf8) == "hello world")
    }

    @Test("NFC and NFD spellings of one path have one partial name")
    func equivalentPathsShareTheirPartialName() {
        #expect(Self.nfc == Self.nfd && Array(Self.nfc.utf8) != Array(Self.nfd.utf8))
        #expect(PartialFile.name(for: Self.nfc) == PartialFile.name(for: Self.nfd))
        #expect(PartialFile.name(for: "K") == PartialFile.name(for: "\u{212A}"))  // KELVIN SIGN is canonically K
        #expect(PartialFile.name(for: "a/b") != PartialFile.name(for: "a/c"))
    }

    @Test("a tree holding an NFC and an NFD file keeps both apart, and looks entries up byte for byte")
    func scanKeepsNormalizationTwinsApart() throws {
        let directory = try TemporaryDirectory()
        try create(directory.path + "/" + Self.nfd, "decomposed!")  // 11 bytes
        try create(directory.path + "/" + Self.nfc, "pre")
        try create(directory.path + "/other.bin", "x")
        let listing = try CacheScanner.scan(root: directory.path)
        #expect(listing.items.count + listing.twins.count == 3)
        #expect(listing.item(at: Self.nfc)?.size == 3)
        #expect(listing.item(at: Self.nfd)?.size == 11)

        let manifest = Manifest(base: "http://h/", entries: [ManifestEntry(path: Self.nfc, size: 3, crc32: 0)])
        let plan = SyncPlan(manifest: manifest, cache: listing)
        #expect(plan.items.map(\.action) == [.check, .extra, .extra])
        #expect(plan.items.map { Array($0.path.utf8) } == [Self.nfc, Self.nfd, "other.bin"].map { Array($0.utf8) })
        #expect(plan.items[0].local?.size == 3)

        // Only the NFD file on disk: the NFC entry is missing, not "the same file".
        let single = try TemporaryDirectory()
        try create(single.path + "/" + Self.nfd, "pre")
        let missing = SyncPlan(manifest: manifest, cache: try CacheScanner.scan(root: single.path))
        #expect(missing.items.map(\.action) == [.new, .extra])
    }

    @Test("a partial truncated behind the writer's back is never committed")
    func commitRefusesAPartialTruncatedByAnotherWriter() throws {
        let directory = try TemporaryDirectory()
        let root = try CacheRoot(resolvedPath: directory.path + "/cache")
        try withBuffer { buffer in
            let partial = try PartialFile(root: root, entry: entry, name: PartialFile.name(for: entry.path), buffer: buffer, resumable: ResumeRecord.canResume)
            try Array("hello world".utf8).withUnsafeBytes { try partial.append($0) }
            try Committer.verify(partial)  // the streamed bytes are right...
            #expect(truncate(partial.displayPath, 4) == 0)  // ...but another writer cut the file on disk
            let errors = Committer.commit([partial])
            #expect(errors == [.partialChanged(path: partial.displayPath, detail: "4 bytes on disk, expected 11")])
        }
        #expect(!FileManager.default.fileExists(atPath: directory.path + "/cache/packs/a.zip"))
    }

    @Test("a partial whose name now leads to another file is never committed")
    func commitRefusesAPartialReplacedByAnotherFile() throws {
        let directory = try TemporaryDirectory()
        let root = try CacheRoot(resolvedPath: directory.path + "/cache")
        try withBuffer { buffer in
            let partial = try PartialFile(root: root, entry: entry, name: "p", buffer: buffer, resumable: ResumeRecord.canResume)
            try Array("hello world".utf8).withUnsafeBytes { try partial.append($0) }
            try directory.write("cache/.assetsync/partial/p.part.new", "hello world")
            #expect(rename(partial.displayPath + ".new", partial.displayPath) == 0)
            #expect(Committer.commit([partial]) == [.partialChanged(path: partial.displayPath, detail: "another file took its name")])
        }
        #expect(!FileManager.default.fileExists(atPath: directory.path + "/cache/packs/a.zip"))
    }

    @Test("a failed directory fsync fails only the files renamed into that directory, naming it")
    func directoryFsyncErrorsAreAttributedToTheirOwnDirectory() throws {
        let directory = try TemporaryDirectory()
        let cache = directory.path + "/cache"
        let root = try CacheRoot(resolvedPath: cache)
        try FileManager.default.createDirectory(atPath: cache + "/a", withIntermediateDirectories: true)
        var failing = stat()
        #expect(stat(cache + "/a", &failing) == 0)
        let errors: [CacheError?] = try withBuffer { buffer in
            var partials: [PartialFile] = []
            for path in ["a/x", "ab/y", "z"] {
                let item = ManifestEntry(path: path, size: 11, crc32: entry.crc32)
                let partial = try PartialFile(root: root, entry: item, name: PartialFile.name(for: path), buffer: buffer, resumable: ResumeRecord.canResume)
                try Array("hello world".utf8).withUnsafeBytes { try partial.append($0) }
                partials.append(partial)
            }
            return Committer.commit(partials, syncingDirectoriesWith: { directory throws(SystemError) in
                guard try directory.descriptor.status().st_ino == failing.st_ino else { return try directory.sync() }
                throw SystemError("fsync", path: directory.path, code: EIO)
            })
        }
        #expect(errors == [.system(SystemError("fsync", path: cache + "/a", code: EIO)), nil, nil])
    }

    @Test("empty entries are committed with one fsync per directory, not per file")
    func emptyEntriesAreCommittedInOneGroup() throws {
        let directory = try TemporaryDirectory()
        let root = try CacheRoot(resolvedPath: directory.path + "/cache")
        var synced = 0
        let entries = (0..<600).map { ManifestEntry(path: "d\($0 % 3)/e\($0)", size: 0, crc32: 0) }
            + [ManifestEntry(path: "bad", size: 0, crc32: 1)]
        let results = Committer.commitEmpty(entries, in: root, syncingDirectoriesWith: { directory throws(SystemError) in
            synced += 1
            try directory.sync()
        })
        #expect(synced == 4)  // d0, d1, d2, and the cache directory, which received the new d0, d1 and d2
        #expect(results.dropLast().allSatisfy { if case .success = $0 { true } else { false } })
        #expect(results.last == .failure(.mismatch(
            "the manifest gives size 0 with CRC-32 00000001, but an empty file's is 00000000")))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path + "/cache/d2").count == 200)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path + "/cache/.assetsync/partial").isEmpty)
    }
}
