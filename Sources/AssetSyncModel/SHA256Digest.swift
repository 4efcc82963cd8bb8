/// A SHA-256 digest: 32 bytes held as four big-endian words, so it compares, hashes and
/// prints without an allocation.
package struct SHA256Digest: Hashable, Sendable, CustomStringConvertible {
    package static let byteCount = 32

    /// The digest's bytes 0–7, 8–15, 16–23 and 24–31, each read big-endian.
    package let words: (UInt64, UInt64, UInt64, UInt64)

    package init(words: (UInt64, UInt64, UInt64, UInt64)) { self.words = words }

    /// The digest whose bytes are `bytes`, which must be exactly 32.
    package init(bytes: UnsafeRawBufferPointer) {
        precondition(bytes.count == Self.byteCount, "a SHA-256 digest is 32 bytes")
        func word(_ index: Int) -> UInt64 {
            (0..<8).reduce(0) { $0 << 8 | UInt64(bytes[index * 8 + $1]) }
        }
        self.init(words: (word(0), word(1), word(2), word(3)))
    }

    /// The digest spelled by exactly 64 hex digits (either case), else nil.
    package init?(hexDigits: some Collection<UInt8>) {
        guard hexDigits.count == 2 * Self.byteCount else { return nil }
        var words: [UInt64] = [0, 0, 0, 0]
        for (index, byte) in hexDigits.enumerated() {
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: return nil
            }
            words[index / 16] = words[index / 16] << 4 | UInt64(digit)
        }
        self.init(words: (words[0], words[1], words[2], words[3]))
    }

    /// The 32 bytes in order.
    package var bytes: [UInt8] {
        [words.0, words.1, words.2, words.3].flatMap { word in (0..<8).map { UInt8(truncatingIfNeeded: word >> (56 - 8 * $0)) } }
    }

    /// The 64 lowercase hex digits, as manifests and the state index write it.
    package var hex: String {
        HexDigits.padded(words.0, width: 16) + HexDigits.padded(words.1, width: 16)
            + HexDigits.padded(words.2, width: 16) + HexDigits.padded(words.3, width: 16)
    }

    package var description: String { hex }

    package static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.words.0 == rhs.words.0 && lhs.words.1 == rhs.words.1 && lhs.words.2 == rhs.words.2 && lhs.words.3 == rhs.words.3
    }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(words.0)
        hasher.combine(words.1)
        hasher.combine(words.2)
        hasher.combine(words.3)
    }
}
