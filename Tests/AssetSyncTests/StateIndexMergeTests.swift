import Testing
@testable import AssetSyncCache
@testable import AssetSyncModel
@testable import AssetSyncSystem

/// The state index in byte order, and its merge-join with a manifest: every
/// lookup gives what a byte-exact lookup by path gives, whatever the order of either side.
@Suite struct StateIndexMergeTests {
    private func proof(_ n: Int) -> FileProof {
        FileProof(size: Int64(n), mtimeNanoseconds: Int64(n) * 1_000, inode: UInt64(n), crc32: UInt32(n))
    }

    private func entries(_ paths: [String]) -> [ManifestEntry] {
        paths.enumerated().map { ManifestEntry(path: $1, size: Int64($0), crc32: UInt32($0)) }
    }

    /// What a lookup by exact bytes finds, the reference the merge-join must agree with.
    private func expected(_ index: StateIndex, _ manifest: [ManifestEntry]) -> [FileProof?] {
        manifest.map { entry in index.entries.first { Array($0.path.utf8) == Array(entry.path.utf8) }?.record }
    }

    @Test("the merge-join finds added, removed, renamed and reordered entries as a lookup by path does")
    func mergeJoinAgreesWithLookupByPath() {
        let index = StateIndex([
            .init(path: "b/kept.bin", record: proof(1)),
            .init(path: "a/removed.bin", record: proof(2)),
            .init(path: "old name.bin", record: proof(3)),
            .init(path: "z", record: proof(4)),
            .init(path: "a-b", record: proof(5)),
            .init(path: "a/b", record: proof(6)),
        ])
        let manifests: [[String]] = [
            ["a-b", "a/b", "b/kept.bin", "new.bin", "new name.bin", "z"],  // sorted
            ["z", "new name.bin", "b/kept.bin", "a/b", "new.bin", "a-b"],  // unsorted
            ["added/only.bin"],
            [],
        ]
        for paths in manifests {
            let manifest = entries(paths)
            #expect(Array(index.proofs(for: manifest)) == expected(index, manifest), "\(paths)")
            // Taking the manifest's copies of the paths finds the same records and leaves the index as it was.
            var sharing = index
            #expect(Array(sharing.proofs(sharingPathsWith: manifest)) == expected(index, manifest), "\(paths)")
            #expect(sharing == index, "\(paths)")
        }
        #expect(Array(index.proofs(for: entries(["z", "a-b", "gone"]))) == [proof(4), proof(5), nil])
        #expect(Array(StateIndex().proofs(for: entries(["a"]))) == [nil])
    }

    @Test("NFC and NFD spellings, and names that differ in case, are different paths")
    func namesAreComparedByTheirBytes() {
        let nfc = "caf\u{E9}.bin"
        let nfd = "cafe\u{301}.bin"
        let onlyNFC = StateIndex([.init(path: nfc, record: proof(1)), .init(path: "Upper.bin", record: proof(2))])
        #expect(Array(onlyNFC.proofs(for: entries([nfd, "upper.bin", "Upper.bin", nfc]))) == [nil, nil, proof(2), proof(1)])
        let both = StateIndex([.init(path: nfd, record: proof(3)), .init(path: nfc, record: proof(4))])
        #expect(both.entries.count == 2)
        #expect(Array(both.proofs(for: entries([nfc, nfd]))) == [proof(4), proof(3)])
    }

    @Test("entries are kept in byte order, one per path, and saved and loaded in that order")
    func entriesAreInByteOrder() throws {
        let index = StateIndex([
            .init(path: "b", record: proof(1)), .init(path: "a/x", record: proof(2)), .init(path: "a-x", record: proof(3)),
            .init(path: "b", record: proof(4)),
        ])
        #expect(index.entries.map(\.path) == ["a-x", "a/x", "b"])
        #expect(index.entries.last?.record == proof(4))
        #expect(StateIndex.decode(index.encoded()) == index)
        #expect(StateIndex(records: index.records) == index)
    }

    /// A state file with the given record lines and a valid trailer.
    private func stateFile(_ lines: [String]) -> [UInt8] {
        var bytes = Array((StateIndex.header + lines.map { $0 + "\n" }.joined()).utf8)
        var crc = CRC32()
        bytes.withUnsafeBytes { crc.update($0) }
        bytes += "end \(lines.count) \(CRC32Text.hex(crc.value))\n".utf8
        return bytes
    }

    @Test("an index written out of order is sorted when read; one listing a path twice, or malformed, is empty")
    func decodeSortsAndRefuses() {
        let unsorted = stateFile(["00000002 2 -5 9 b", "00000001 1 10 8 a"])
        let index = StateIndex.decode(unsorted)
        #expect(index?.entries.map(\.path) == ["a", "b"])
        #expect(index?.entries.last?.record == FileProof(size: 2, mtimeNanoseconds: -5, inode: 9, crc32: 2))
        #expect(StateIndex.decode(stateFile(["00000001 1 10 8 a", "00000002 2 5 9 a"])) == nil)
        for bad in ["0000000g 1 1 1 a", "00000001 x 1 1 a", "00000001 1 1 a", "00000001 -1 1 1 a",
                    "00000001 1 1 99999999999999999999 a", "1ffffffff 1 1 1 a", "00000001  1 1 1 a"] {
            #expect(StateIndex.decode(stateFile([bad])) == nil, "\(bad)")
        }
        #expect(StateIndex.decode(stateFile(["00000001 1 1 1 with space/and more"]))?.entries.first?.path == "with space/and more")
    }

    @Test func recordsWhosePathsBreakTheManifestsPathRulesAreDroppedAndTheRestKept() {
        let bad = ["../x", "a/../../x", "/abs", "a/./b", "./a", "a//b", "a/", "a\u{0}b", "a\u{1F}b", "a\\b",
                   ".assetsync/state", ".assetsync", String(repeating: "n", count: 256)]
        let lines = ["00000001 1 1 1 a", "00000002 2 2 2 sub/b"] + bad.map { "00000003 3 3 3 \($0)" } + ["00000004 4 4 4 zz"]
        let index = StateIndex.decode(stateFile(lines))
        #expect(index?.entries.map(\.path) == ["a", "sub/b", "zz"], "\(index?.entries.map(\.path) ?? [])")
        // Out of order, as another tool may write it: the same records are dropped and the rest sorted.
        #expect(StateIndex.decode(stateFile(lines.reversed()))?.entries.map(\.path) == ["a", "sub/b", "zz"])
        // Names a manifest may give, dots and spaces within a component included, are kept.
        let good = ["..a", "a..", ".hidden/...", "a b/c", ".assetsyncx/y"]
        #expect(StateIndex.decode(stateFile(good.map { "00000001 1 1 1 \($0)" }))?.entries.count == good.count)
    }

    /// Found by `make fuzz` (fuzz/regressions/records): the trailer's count is outside the CRC, and
    /// reserving room for 9,775,287,372 entries before counting them ran out of memory.
    @Test func aTrailerClaimingBillionsOfEntriesIsRefusedWithoutReservingThem() {
        var bytes = stateFile(["00000001 1 10 8 a"])
        let trailer = bytes.lastIndex(of: UInt8(ascii: "e"))!
        let crc = String(decoding: bytes[bytes.index(bytes.endIndex, offsetBy: -9)...], as: UTF8.self)
        bytes.replaceSubrange(trailer..., with: Array("end 9775287372 \(crc)".utf8))
        #expect(StateIndex.decode(bytes) == nil)
    }

    @Test("PathOrder orders by bytes and sorts only what is out of order")
    func pathOrderIsByteOrder() {
        let paths = ["a", "a/b", "a-b", "A", "ab", "abcdefghij/k", "abcdefghi", "caf\u{E9}", "cafe\u{301}", "", "abcdefgh"]
        for a in paths {
            for b in paths {
                let bytes = Array(a.utf8).lexicographicallyPrecedes(Array(b.utf8)) ? -1 : (Array(a.utf8) == Array(b.utf8) ? 0 : 1)
                #expect(PathOrder.compare(a, b) == bytes, "\(a) \(b)")
            }
        }
        let sorted = PathOrder.sortedIndices(paths.count) { paths[$0] }
        #expect(sorted.map { paths[$0] } == paths.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) })
        #expect(PathOrder.sortedIndices(3) { ["a", "b", "c"][$0] } == [0, 1, 2])
    }
}
