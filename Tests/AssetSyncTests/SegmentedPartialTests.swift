import Testing
@testable import AssetSyncCache
@testable import AssetSyncModel
@testable import AssetSyncPull
@testable import AssetSyncSystem
@testable import AssetSyncTransfer
import TestSupport

/// A segmented download in the cache and the record: segments of one partial, their CRCs joined with
/// `crc32_combine`, and the segments a resume record keeps.
@Suite struct SegmentedPartialTests {
    private let entry = ManifestEntry(path: "big.bin", size: 11, crc32: 0x0D4A_1185)  // CRC-32 of "hello world"

    private static func crc(_ bytes: [UInt8]) -> UInt32 {
        var crc = CRC32()
        bytes.withUnsafeBytes { crc.update($0) }
        return crc.value
    }

    @Test("CRC32.combine of two pieces' CRCs is the CRC of both, at every split")
    func combineMatchesTheWhole() {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<777).map { _ in UInt8.random(in: 0...255, using: &generator) }
        for split in [0, 1, 2, 100, 776, 777] + (0..<20).map({ _ in Int.random(in: 0...777, using: &generator) }) {
            let joined = CRC32.combine(Self.crc(Array(bytes[..<split])), Self.crc(Array(bytes[split...])), Int64(777 - split))
            #expect(joined == Self.crc(bytes), "split at \(split)")
        }
    }

    @Test("a record keeps its segments, and only segments that tile the file are continued")
    func recordSegmentsRoundTripAndMustTile() {
        let segments = [ResumeRecord.SegmentProgress(range: 0..<5, done: 3), .init(range: 5..<11, done: 6)]
        let record = ResumeRecord(url: "http://h/big.bin", etag: "\"v1\"", lastModified: nil, segments: segments)
        let decoded = PartialFile.decodeResume(PartialFile.encodeResume(record.fields, for: entry), for: entry).flatMap(ResumeRecord.init(fields:))
        #expect(decoded == record)
        #expect(decoded?.segments(tiling: 11) == segments)
        #expect(decoded?.segments(tiling: 12) == nil)  // another size
        for bad in [
            [ResumeRecord.SegmentProgress(range: 0..<5, done: 6), .init(range: 5..<11, done: 0)],  // done past its range
            [.init(range: 0..<5, done: 0), .init(range: 6..<11, done: 0)],  // a gap
            [.init(range: 0..<6, done: 0), .init(range: 5..<11, done: 0)],  // an overlap
            [.init(range: 0..<11, done: -1)],
        ] {
            #expect(ResumeRecord(url: "u", etag: "\"v1\"", lastModified: nil, segments: bad).segments(tiling: 11) == nil, "\(bad)")
        }
        #expect(ResumeRecord(fields: ["url": "u", "segments": "0-5+1,x"])?.segments == nil)
    }

    @Test("segments written out of order join into the file's CRC; a reopened partial continues each from its bytes")
    func segmentsJoinAndResume() throws {
        let directory = try TemporaryDirectory()
        let root = try CacheRoot(resolvedPath: directory.path + "/cache")
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 4, alignment: 16)  // rebuilds read in several pieces
        defer { buffer.deallocate() }
        let text = Array("hello world".utf8)
        let ranges: [Range<Int64>] = [0..<3, 3..<7, 7..<11]
        let inSegments: ([String: String]) -> Bool = { ResumeRecord(fields: $0)?.segments != nil }
        do {
            let partial = try PartialFile(root: root, entry: entry, name: "p", buffer: buffer, resumable: ResumeRecord.canResume)
            partial.preallocate()
            let segments = try ranges.map { range throws(SystemError) in try partial.segment(range, done: 0, buffer: buffer) }
            for index in [2, 0] {  // the last segment first; the middle one only half
                try text[Int(ranges[index].lowerBound)..<Int(ranges[index].upperBound)].withUnsafeBytes { try segments[index].append($0) }
            }
            try text[3..<5].withUnsafeBytes { try segments[1].append($0) }
            #expect(segments.map(\.shortfall).map { $0 == nil } == [true, false, true])
            let record = ResumeRecord(
                url: "http://h/big.bin", etag: "\"v1\"", lastModified: nil,
                segments: zip(ranges, segments).map { .init(range: $0, done: $1.offset - $0.lowerBound) })
            try partial.saveResume(record.fields)
        }
        let partial = try PartialFile(root: root, entry: entry, name: "p", buffer: buffer, resumable: ResumeRecord.canResume, inSegments: inSegments)
        #expect(partial.offset == 0)
        let record = try #require(partial.resumeFields.flatMap(ResumeRecord.init(fields:)))
        let progress = try #require(record.segments(tiling: 11))
        #expect(progress.map(\.done) == [3, 2, 4])
        let segments = try progress.map { segment throws(SystemError) in try partial.segment(segment.range, done: segment.done, buffer: buffer) }
        #expect(segments.map(\.offset) == [3, 5, 11])
        try text[5..<7].withUnsafeBytes { try segments[1].append($0) }
        partial.joinSegments()
        #expect(partial.offset == 11 && partial.crc.value == entry.crc32)
        try Committer.verify(partial)

        // Bytes a record claims but the file lacks: that segment starts from its range's start.
        partial.discard()
        let short = try PartialFile(root: root, entry: entry, name: "q", buffer: buffer, resumable: ResumeRecord.canResume)
        try text[0..<4].withUnsafeBytes { try short.append($0) }
        #expect(try short.segment(3..<11, done: 5, buffer: buffer).offset == 3)
    }
}
