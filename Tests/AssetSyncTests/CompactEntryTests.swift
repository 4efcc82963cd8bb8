import Testing
@testable import AssetSyncModel

/// The compact forms a million-entry run holds: manifest entries with their rare fields boxed,
/// proofs with their SHA-256 out of line, and per-entry columns made only once a value is set.
@Suite struct CompactEntryTests {
    private let digest = SHA256Digest(words: (1, 2, 3, 4))

    @Test func aRecordAndAnOutcomeStayCompact() {
        #expect(MemoryLayout<FileProof?>.stride == 40)
        #expect(MemoryLayout<FileResult.Outcome>.size <= 8, "a failure is boxed")
        #expect(MemoryLayout<FileResult>.stride == 48, "how a file was fetched is boxed")
    }

    @Test func aResultKeepsHowItsFileWasFetchedAndCopiesDoNotShareChanges() {
        let source = DownloadSource(url: "http://m/a", origin: "http://m")
        var result = FileResult(
            path: "a", size: 9, action: .new, outcome: .committed, attempts: 2, transferred: 12, source: source, isFromMirror: true,
            failedSources: ["http://h"], reusedFrom: "old/a")
        #expect(result.attempts == 2 && result.transferred == 12 && result.source == source && result.isFromMirror)
        #expect(result.failedSources == ["http://h"] && result.reusedFrom == "old/a" && result.reusedBytes == 9)
        let copy = result
        result.attempts = 3
        result.reusedBytes = 4
        #expect(copy.attempts == 2 && copy.reusedBytes == 9 && result.attempts == 3 && result.reusedBytes == 4)
        var current = FileResult(path: "b", size: 1, action: .current, outcome: .current)
        #expect(current.attempts == 0 && current.source == nil && current.failedSources.isEmpty && current.reusedBytes == 0)
        current.transferred = 5
        current.transferred = 0
        #expect(current == FileResult(path: "b", size: 1, action: .current, outcome: .current), "fields back at their defaults")
    }

    @Test func boxedFieldsReadBackAsSetAndCopiesDoNotShareChanges() {
        let chunks = ChunkList(parameters: .standard, lengths: [], digests: [])
        var entry = ManifestEntry(path: "a", size: 1, crc32: 2)
        #expect(entry.url == nil && entry.mirrors.isEmpty && entry.sha256 == nil && entry.chunks == nil)
        entry.url = "http://h/a"
        entry.mirrors = ["http://m/a"]
        entry.sha256 = digest
        entry.chunks = chunks
        let copy = entry
        entry.mirrors = []
        entry.url = nil
        #expect(copy.url == "http://h/a" && copy.mirrors == ["http://m/a"] && copy.sha256 == digest && copy.chunks == chunks)
        #expect(entry.url == nil && entry.mirrors.isEmpty && entry.sha256 == digest && entry.chunks == chunks)
        #expect(entry != copy)
        entry.url = "http://h/a"
        entry.mirrors = ["http://m/a"]
        #expect(entry == copy, "entries with equal fields are equal, whichever box holds them")
    }

    @Test func anEntryWhoseBoxedFieldsAreAllClearedEqualsAPlainOne() {
        var entry = ManifestEntry(path: "a", size: 1, crc32: 2, url: "http://h/a")
        entry.url = nil
        #expect(entry == ManifestEntry(path: "a", size: 1, crc32: 2))
    }

    @Test func aProofKeepsItsSHA256() {
        var proof = FileProof(size: 1, mtimeNanoseconds: 2, inode: 3, crc32: 4, sha256: digest)
        #expect(proof.sha256 == digest)
        proof.sha256 = nil
        #expect(proof == FileProof(size: 1, mtimeNanoseconds: 2, inode: 3, crc32: 4))
    }

    @Test func aColumnHoldsWhatWasSetAndNilElsewhere() {
        var column = EntryColumn<Int>(count: 4)
        #expect(Array(column) == [nil, nil, nil, nil])
        column[1] = nil
        #expect(column == EntryColumn<Int>(count: 4))
        column[2] = 7
        column[0] = 5
        column[0] = nil
        #expect(Array(column) == [nil, nil, 7, nil])
        #expect(column.count == 4 && column != EntryColumn<Int>(count: 4))
    }

    @Test func aColumnGivenWholeReadsBackAndCountsItsValues() {
        let column = EntryColumn(count: 3, values: [4, nil, 6])
        #expect(Array(column) == [4, nil, 6] && column.valueCount == 2)
        #expect(EntryColumn<Int>(count: 3, values: []) == EntryColumn<Int>(count: 3))
        #expect(EntryColumn<Int>(count: 3).valueCount == 0)
    }

    @Test func clearingRemovesOnlyTheChosenValues() {
        var column = EntryColumn(count: 4, values: [1, 2, nil, 4])
        column.clear { $0 % 2 == 1 }
        #expect(Array(column) == [1, nil, nil, nil])
        var empty = EntryColumn<Int>(count: 2)
        empty.clear { _ in true }
        #expect(Array(empty) == [nil, nil])
    }

    @Test func eachValueComesFromTheColumnOrElseItsFallback() {
        let column = EntryColumn(count: 4, values: [1, nil, 3, nil])
        let fallback = EntryColumn(count: 4, values: [10, 20, nil, nil])
        var seen: [String] = []
        column.forEachValue(orIn: fallback) { seen.append("\($0)=\($1)") }
        #expect(seen == ["0=1", "1=20", "2=3"])
        seen = []
        EntryColumn<Int>(count: 4).forEachValue(orIn: fallback) { seen.append("\($0)=\($1)") }
        #expect(seen == ["0=10", "1=20"])
    }
}
