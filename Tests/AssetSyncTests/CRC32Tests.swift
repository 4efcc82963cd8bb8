import AssetSyncSystem
import CZlib
import Testing
import TestSupport

/// The one CRC type (ISA-L) against zlib's `crc32_z`, the reference every manifest's CRC-32 comes from.
@Suite struct CRC32Tests {
    /// Random bytes to take every buffer from: long enough for the largest length at the largest offset.
    static let pool: [UInt8] = {
        var random = SeededGenerator(seed: 10)
        return (0..<(1 << 20) + 64).map { _ in UInt8.random(in: 0...255, using: &random) }
    }()

    static func zlib(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
        UInt32(crc32_z(0, bytes.baseAddress?.assumingMemoryBound(to: Bytef.self), bytes.count))
    }

    static let lengths = Array(0...4096) + [65_535, 65_536, 131_079, 1 << 20]

    @Test("ISA-L and zlib agree on every length 0...4096 (and larger) at random alignments, one-shot and in random pieces")
    func agreesWithZlib() {
        var random = SeededGenerator(seed: 4)
        Self.pool.withUnsafeBytes { pool in
            for length in Self.lengths {
                let start = Int.random(in: 0...63, using: &random)
                let bytes = UnsafeRawBufferPointer(rebasing: pool[start..<(start + length)])
                let expected = Self.zlib(bytes)
                var whole = CRC32()
                whole.update(bytes)
                #expect(whole.value == expected, "length \(length) at offset \(start)")
                var pieces = CRC32()
                var at = 0
                while at < length {
                    let piece = Int.random(in: 1...max(1, min(length - at, 1 + length / 3)), using: &random)
                    pieces.update(UnsafeRawBufferPointer(rebasing: bytes[at..<(at + piece)]))
                    at += piece
                }
                #expect(pieces.value == expected, "length \(length) at offset \(start), in pieces")
            }
        }
    }

    @Test("combine gives the CRC of the concatenation, for any split (empty halves included)")
    func combineJoinsAdjacentStretches() {
        var random = SeededGenerator(seed: 5)
        Self.pool.withUnsafeBytes { pool in
            for length in Self.lengths where length % 61 == 0 || length > 4096 {
                let bytes = UnsafeRawBufferPointer(rebasing: pool[0..<length])
                for split in [0, length, Int.random(in: 0...length, using: &random)] {
                    var first = CRC32()
                    first.update(UnsafeRawBufferPointer(rebasing: bytes[0..<split]))
                    var second = CRC32()
                    second.update(UnsafeRawBufferPointer(rebasing: bytes[split...]))
                    #expect(
                        CRC32.combine(first.value, second.value, Int64(length - split)) == Self.zlib(bytes),
                        "length \(length) split at \(split)")
                }
            }
        }
    }
}
