/// A chunk's strong hash: the first 128 bits of its SHA-256, held as two big-endian words. Two
/// chunks count as equal only when these are (a CRC-32 collides at about 100,000 chunks).
package struct ChunkDigest: Hashable, Sendable, CustomStringConvertible {
    package static let byteCount = 16

    package let high: UInt64
    package let low: UInt64

    package init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// The first 128 bits of `digest`.
    package init(_ digest: SHA256Digest) { self.init(high: digest.words.0, low: digest.words.1) }

    package var description: String { HexDigits.padded(high, width: 16) + HexDigits.padded(low, width: 16) }
}
