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

/// The cache side of a pull: resume records, partial files, the commit protocol,
/// and directory creation that never follows a symlink.
@Suite struct CacheTests {
    private let entry = ManifestEntry(path: "packs/a.zip", size: 11, crc32: 0x0D4A_1185)  // CRC-32 of "hello world"

    @Test func resumeRecordsRoundTripAndRejectAnythingTorn() {
        let record = ResumeRecord(url: "http://h/a.zip", etag: "\"abc\"", lastModified: "Mon, 30 Nov 2026 05:00:00 GMT")
        let encoded = PartialFile.encodeResume(record.fields, for: entry)
        #expect(PartialFile.decodeResume(encoded, for: entry).flatMap(ResumeRecord.init(fields:)) == record)
        #expect(record.ifRange == "\"abc\"")
        var other = entry
        other.crc32 = 1
        #expect(PartialFile.decodeResume(encoded, for: other) == nil)
        var weak = record
        weak.etag = "W/\"abc\""
        #expect(weak.ifRange == "Mon, 30 Nov 2026 05:00:00 GMT")
        #expect(PartialFile.decodeResume(String(encoded.dropLast(4)), for: entry) == nil)
        #expect(PartialFile.decodeResume("something else\n", for: entry) == nil)
        #expect(PartialFile.decodeResume(encoded.replacingOccurrences(of: "size 11", with: "size x"), for: entry) == nil)
    }

    @Test func partialResumesOnlyWithAMatchingRecordAndRebuildsTheCRC() throws {
        let directory = try TemporaryDirectory()
        let root = try CacheRoot(resolvedPath: directory.path + "/cache")
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 4096, alignment: 16)
        defer { buffer.deallocate() }
        let name = PartialFile.name(for: entry.path)
        do {
            let partial = try PartialFile(root: root, entry: entry, name: name, buffer: buffer, resumable: ResumeRecord.canResume)
            #expect(partial.offset == 0)
            try Array("hello".utf8).withUnsafeBytes { try partial.append($0) }
            try partial.saveResume(ResumeRecord(url: "http://h/a", etag: "\"v1\"", lastModified: nil).fields)
        }
        do {  // released before the next open: a partial has one writer at a time
            let resumed = try PartialFile(root: root, entry: entry, name: name, buffer: buffer, resumable: ResumeRecord.canResume)
            #expect(resumed.offset == 5)
            try Array(" world".utf8).withUnsafeBytes { try resumed.append($0) }
            #expect(resumed.crc.value == entry.crc32)
        }

        // A changed manifest entry (other CRC) never continues those bytes.
        var changed = entry
        changed.crc32 = 1
        #expect(try PartialFile(root: root, entry: changed, name: name, buffer: buffer, resumable: ResumeRecord.canResume).offset == 0)
    }

    @Test func groupCommitPlacesFilesAndReplacesSymlinksWithoutWritingThroughThem() throws {
        let directory = try TemporaryDirectory()
        let outside = try TemporaryDirectory()
        let victim = try outside.write("victim", "untouched")
        let cachePath = directory.path + "/cache"
        let root = try CacheRoot(resolvedPath: cachePath)
        try FileManager.default.createSymbolicLink(atPath: cachePath + "/packs", withDestinationPath: outside.path)
        try FileManager.default.createSymbolicLink(atPath: cachePath + "/b.bin", withDestinationPath: victim)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 4096, alignment: 16)
        defer { buffer.deallocate() }
        let second = ManifestEntry(path: "b.bin", size: 11, crc32: entry.crc32)
        var partials: [PartialFile] = []
        for item in [entry, second] {
            let partial = try PartialFile(root: root, entry: item, name: PartialFile.name(for: item.path), buffer: buffer, resumable: ResumeRecord.canResume)
            try Array("hello world".utf8).withUnsafeBytes { try partial.append($0) }
            try Committer.verify(partial)
            partials.append(partial)
        }
        #expect(Committer.commit(partials) == [nil, nil])
        #expect(try String(contentsOfFile: cachePath + "/packs/a.zip", encoding: .utf8) == "hello world")
        #expect(try String(contentsOfFile: cachePath + "/b.bin", encoding: .utf8) == "hello world")
        #expect(try FileManager.default.attributesOfItem(atPath: cachePath + "/packs")[.type] as? FileAttributeType == .typeDirectory)
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "untouched")
        #expect(try FileManager.default.contentsOfDirectory(atPath: outside.path) == ["victim"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: cachePath + "/.assetsync/partial").isEmpty)
        var mode = stat()
        stat(cachePath + "/b.bin", &mode)
        #expect(mode.st_mode & 0o777 == Committer.fileMode)
    }

    @Test func verifyRefusesWrongSizeOrCRC() throws {
        let directory = try TemporaryDirectory()
        let root = try CacheRoot(resolvedPath: directory.path + "/cache")
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 4096, alignment: 16)
        defer { buffer.deallocate() }
        let partial = try PartialFile(root: root, entry: entry, name: "x", buffer: buffer, resumable: ResumeRecord.canResume)
        try Array("hello worle".utf8).withUnsafeBytes { try partial.append($0) }
        #expect(throws: CommitError.mismatch("CRC-32 is 7a4d2113, expected 0d4a1185")) { try Committer.verify(partial) }
        let short = try PartialFile(root: root, entry: entry, name: "y", buffer: buffer, resumable: ResumeRecord.canResume)
        #expect(throws: CommitError.mismatch("received 0 bytes, expected 11")) { try Committer.verify(short) }
    }

    @Test("a directory (empty or not) where a committed file must go is an obstruction; the partial stays")
    func aDirectoryAtTheFinalPathObstructsTheCommit() throws {
        let directory = try TemporaryDirectory()
        let cachePath = directory.path + "/cache"
        let root = try CacheRoot(resolvedPath: cachePath)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 4096, alignment: 16)
        defer { buffer.deallocate() }
        let empty = ManifestEntry(path: "empty", size: 11, crc32: entry.crc32)
        let full = ManifestEntry(path: "full", size: 11, crc32: entry.crc32)
        try FileManager.default.createDirectory(atPath: cachePath + "/empty", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: cachePath + "/full/x", withIntermediateDirectories: true)
        var partials: [PartialFile] = []
        for item in [empty, full] {
            let partial = try PartialFile(root: root, entry: item, name: PartialFile.name(for: item.path), buffer: buffer, resumable: ResumeRecord.canResume)
            try Array("hello world".utf8).withUnsafeBytes { try partial.append($0) }
            partials.append(partial)
        }
        #expect(Committer.commit(partials) == [
            .obstructed(path: cachePath + "/empty", by: .directory), .obstructed(path: cachePath + "/full", by: .directory),
        ])
        #expect(try FileManager.default.contentsOfDirectory(atPath: cachePath + "/.assetsync/partial").count == 2)
    }

    @Test func aFileWhereADirectoryMustGoIsAnObstruction() throws {
        let directory = try TemporaryDirectory()
        let root = try CacheRoot(resolvedPath: directory.path + "/cache")
        try directory.write("cache/packs", "a file")
        #expect(throws: CacheError.obstructed(path: directory.path + "/cache/packs", by: .regular)) {
            try root.openParent(of: "packs/a.zip")
        }
    }

    @Test func responseHeadsParseRangesAndRetryAfter() {
        var head = ResponseHead()
        for line in ["HTTP/1.1 302 Found\r\n", "Location: /x\r\n", "HTTP/1.1 206 Partial Content\r\n",
                     "ETag: \"e1\"\r\n", "Content-Range: bytes 100-199/1000\r\n", "retry-after: 7\r\n"] {
            head.take(Substring(line))
        }
        #expect(head.status == 206)
        #expect(head.etag == "\"e1\"")
        #expect(head.range! == (100, 199, 1000))
        #expect(head.retryAfterSeconds == 7)
        head.take("HTTP/2 200\r\n")
        #expect(head.etag == nil && head.status == 200)
        head.contentRange = "bytes 5-1/10"
        #expect(head.range == nil)
        head.contentRange = "bytes 0-9/*"
        #expect(head.range! == (0, 9, nil))
    }
}

/// The state index: round trip, and anything torn or altered is an empty index.
@Suite struct StateIndexTests {
    @Test func roundTripsAndRefusesTornOrAlteredFiles() throws {
        let directory = try TemporaryDirectory()
        let root = try CacheRoot(resolvedPath: directory.path + "/cache")
        #expect(StateIndex.load(from: root) == StateIndex())
        var index = StateIndex()
        index.records["videos/intro v2.mp4"] = .init(size: 734_003_200, mtimeNanoseconds: 1_700_000_000_123_456_789, inode: 42, crc32: 0x6a75_c367)
        index.records["a"] = .init(size: 0, mtimeNanoseconds: 1, inode: 7, crc32: 0)
        try index.save(to: root)
        #expect(StateIndex.load(from: root) == index)

        let path = directory.path + "/cache/.assetsync/state"
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        for damaged in [bytes.dropLast(1), bytes.dropLast(20), Data(bytes.prefix(bytes.count / 2)),
                        Data(String(decoding: bytes, as: UTF8.self).replacingOccurrences(of: "734003200", with: "734003201").utf8)] {
            try Data(damaged).write(to: URL(fileURLWithPath: path))
            #expect(StateIndex.load(from: root) == StateIndex())
        }
    }
}

/// Messages about assetsync's own files that say what to do.
@Suite struct CacheMessageTests {
    @Test("a symlinked .assetsync is refused with advice that does not point at --delete")
    func aSymlinkedMetadataDirectoryIsRefusedWithUsefulAdvice() throws {
        let directory = try TemporaryDirectory()
        let elsewhere = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: directory.path + "/cache", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: directory.path + "/cache/.assetsync", withDestinationPath: elsewhere.path)
        do {
            _ = try CacheRoot(resolvedPath: directory.path + "/cache")
            Issue.record("a symlinked .assetsync was followed")
        } catch {
            #expect(error == .metadataObstructed(path: directory.path + "/cache/.assetsync", by: .symlink))
            #expect(!error.description.contains("--delete"))
            #expect(error.description.contains("make DEST itself the link"))
        }
    }

    @Test("an error about a resume record names <h>.resume, the file it is")
    func resumeRecordErrorsNameTheRecord() throws {
        let directory = try TemporaryDirectory()
        let root = try CacheRoot(resolvedPath: directory.path + "/cache")
        let entry = ManifestEntry(path: "a.bin", size: 11, crc32: 0x0D4A_1185)
        let name = PartialFile.name(for: entry.path)
        // A directory where the record goes makes its rename fail.
        try FileManager.default.createDirectory(atPath: directory.path + "/cache/.assetsync/partial/" + name + ".resume/x", withIntermediateDirectories: true)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 4096, alignment: 16)
        defer { buffer.deallocate() }
        let partial = try PartialFile(root: root, entry: entry, name: name, buffer: buffer, resumable: ResumeRecord.canResume)
        do {
            try partial.saveResume(ResumeRecord(url: "http://h/a", etag: "\"v\"", lastModified: nil).fields)
            Issue.record("the record was saved over a directory")
        } catch {
            #expect(error.path == directory.path + "/cache/.assetsync/partial/" + name + ".resume")
        }
    }
}
