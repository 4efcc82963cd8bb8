import Testing
@testable import AssetSyncCache
@testable import AssetSyncManifestIO
@testable import AssetSyncModel
@testable import AssetSyncSystem

/// The `sha256` field through the model: read in both encodings, written back, kept in the state
/// index, and demanded by the plan of a record before it may vouch for a file.
@Suite struct StrongHashRecordTests {
    static let digest = SHA256.digest(of: UnsafeRawBufferPointer(start: nil, count: 0))
    static let other = Array("abc".utf8).withUnsafeBytes { SHA256.digest(of: $0) }

    @Test func readAndWrittenInBothEncodings() throws {
        let manifest = Manifest(
            base: "https://cdn.example.com/game/",
            entries: [ManifestEntry(path: "a", size: 0, crc32: 0, sha256: Self.digest), ManifestEntry(path: "b", size: 1, crc32: 1)])
        for format in [ManifestWriter.Format.xml, .json] {
            let text = ManifestWriter.render(manifest, as: format)
            #expect(text.contains(Self.digest.hex))
            #expect(try readManifest(text) == manifest)
        }
        let upper = #"<manifest version="1" base="http://h/"><file path="a" size="0" crc32="00000000" sha256="\#(Self.digest.hex.uppercased())"/></manifest>"#
        #expect(try readManifest(upper).entries[0].sha256 == Self.digest)
    }

    @Test func theStateIndexKeepsItBesideRecordsWithout() throws {
        let index = StateIndex(records: [
            "with sha.bin": FileProof(size: 3, mtimeNanoseconds: -5, inode: 9, crc32: 0x0102_0304, sha256: Self.other),
            "without.bin": FileProof(size: 4, mtimeNanoseconds: 6, inode: 10, crc32: 0xFFFF_FFFF),
        ])
        let bytes = index.encoded()
        #expect(String(decoding: bytes, as: UTF8.self).contains("01020304:\(Self.other.hex) 3 -5 9 with sha.bin\n"))
        #expect(StateIndex.decode(bytes) == index)
        // A damaged digest makes the line, and so the index, unreadable (the trailer's CRC aside).
        for bad in ["01020304:\(Self.other.hex.dropLast()) 3 -5 9 a\n", "01020304:\(Self.other.hex)0 3 -5 9 a\n", "0102030:0 3 -5 9 a\n"] {
            var text = String(StateIndex.header) + bad
            var crc = CRC32()
            Array(text.utf8).withUnsafeBytes { crc.update($0) }
            text += "end 1 \(CRC32Text.hex(crc.value))\n"
            #expect(StateIndex.decode(Array(text.utf8)) == nil, "\(bad)")
        }
    }

    @Test func aRecordVouchesOnlyForTheHashesTheEntryAsksFor() {
        let record = FileProof(size: 1, mtimeNanoseconds: 1, inode: 1, crc32: 7, sha256: Self.digest)
        let plain = FileProof(size: 1, mtimeNanoseconds: 1, inode: 1, crc32: 7)
        #expect(record.proves(ManifestEntry(path: "a", size: 1, crc32: 7)))
        #expect(record.proves(ManifestEntry(path: "a", size: 1, crc32: 7, sha256: Self.digest)))
        #expect(!record.proves(ManifestEntry(path: "a", size: 1, crc32: 7, sha256: Self.other)))
        #expect(!plain.proves(ManifestEntry(path: "a", size: 1, crc32: 7, sha256: Self.digest)), "a record without it must read the file")
        #expect(!record.proves(ManifestEntry(path: "a", size: 1, crc32: 8, sha256: Self.digest)))
    }

    @Test func anEntryWithASHA256AndNoCRC32IsReadAndWrittenInBothEncodings() throws {
        let manifest = Manifest(base: "http://h/", entries: [ManifestEntry(path: "a", size: 3, crc32: nil, sha256: Self.other)])
        for format in [ManifestWriter.Format.xml, .json] {
            let text = ManifestWriter.render(manifest, as: format)
            #expect(!text.contains("crc32"))
            let read = try readManifest(text)
            #expect(read == manifest && read.entries[0].crc32 == nil)
        }
        #expect(MemoryLayout<ManifestEntry>.stride == 40 && MemoryLayout<FileProof?>.stride == 40, "the flag takes no room")
    }

    @Test func anEntryWithNeitherChecksumIsRefusedInBothEncodings() {
        #expect(manifestError(#"<manifest version="1" base="http://h/"><file path="a" size="1"/></manifest>"#)
            == "m:1:40: <file>: missing the required attribute crc32 (or sha256)")
        #expect(manifestError(#"{"version": 1, "base": "http://h/", "files": [{"path": "a", "size": 1}]}"#)
            == #"m:1:47: files[0]: missing the required key "crc32" (or "sha256")"#)
    }

    @Test func theStateIndexRecordsAProofOfTheSHA256AloneAsSuch() throws {
        let index = StateIndex(records: [
            "sha only.bin": FileProof(size: 3, mtimeNanoseconds: 5, inode: 9, crc32: nil, sha256: Self.other),
            "both.bin": FileProof(size: 4, mtimeNanoseconds: 6, inode: 10, crc32: 0, sha256: Self.other),
        ])
        let bytes = index.encoded()
        #expect(String(decoding: bytes, as: UTF8.self).contains("-:\(Self.other.hex) 3 5 9 sha only.bin\n"))
        let decoded = try #require(StateIndex.decode(bytes))
        #expect(decoded == index && decoded.records["sha only.bin"]?.crc32 == nil && decoded.records["both.bin"]?.crc32 == 0)
        // A "-" without a SHA-256 proves nothing: the line, and so the index, is unreadable.
        var text = String(StateIndex.header) + "- 3 5 9 a\n"
        var crc = CRC32()
        Array(text.utf8).withUnsafeBytes { crc.update($0) }
        text += "end 1 \(CRC32Text.hex(crc.value))\n"
        #expect(StateIndex.decode(Array(text.utf8)) == nil)
    }

    @Test func aRecordOfOneChecksumNeverVouchesForTheOther() {
        let shaOnly = FileProof(size: 1, mtimeNanoseconds: 1, inode: 1, crc32: nil, sha256: Self.digest)
        let crcOnly = FileProof(size: 1, mtimeNanoseconds: 1, inode: 1, crc32: 7)
        #expect(shaOnly.proves(ManifestEntry(path: "a", size: 1, crc32: nil, sha256: Self.digest)))
        #expect(!shaOnly.proves(ManifestEntry(path: "a", size: 1, crc32: 7)), "a later manifest's CRC-32 was never proven")
        #expect(!shaOnly.proves(ManifestEntry(path: "a", size: 1, crc32: 7, sha256: Self.digest)))
        #expect(!crcOnly.proves(ManifestEntry(path: "a", size: 1, crc32: nil, sha256: Self.digest)))
        #expect(crcOnly.proves(ManifestEntry(path: "a", size: 1, crc32: 7)))
    }

    @Test func bytesOfAnEntryWithoutACRC32AreJudgedBySizeAndSHA256() {
        let entry = ManifestEntry(path: "a", size: 3, crc32: nil, sha256: Self.other)
        #expect(Committer.mismatch(received: 3, crc: 0x1234_5678, for: entry) == nil, "no CRC-32 to compare")
        #expect(Committer.mismatch(received: 2, crc: 0, for: entry) == "received 2 bytes, expected 3")
        #expect(Committer.mismatch(sha256: Self.other, for: entry) == nil)
        #expect(Committer.mismatch(sha256: Self.digest, for: entry) == "SHA-256 is \(Self.digest.hex), expected \(Self.other.hex)")
        #expect(Committer.emptyMismatch(for: ManifestEntry(path: "e", size: 0, crc32: nil, sha256: Self.digest)) == nil)
    }

    @Test func aResumeRecordOfAnEntryWithoutACRC32NamesItsSHA256() {
        let entry = ManifestEntry(path: "a", size: 3, crc32: nil, sha256: Self.other)
        let text = PartialFile.encodeResume([("etag", "\"x\"")], for: entry)
        #expect(text.contains(Self.other.hex) && !text.contains("crc32"))
        #expect(PartialFile.decodeResume(text, for: entry)?["etag"] == "\"x\"")
        #expect(PartialFile.decodeResume(text, for: ManifestEntry(path: "a", size: 3, crc32: nil, sha256: Self.digest)) == nil)
        #expect(PartialFile.decodeResume(text, for: ManifestEntry(path: "a", size: 3, crc32: 1, sha256: Self.other)) == nil)
    }
}
