import AssetSyncModel
import AssetSyncSystem
import Testing
import TestSupport

/// The SHA-256 hasher (libcrypto) against FIPS 180-2's published vectors, whole and in pieces.
@Suite struct SHA256Tests {
    static func digest(_ text: String) -> SHA256Digest {
        Array(text.utf8).withUnsafeBytes { SHA256.digest(of: $0) }
    }

    @Test("the published vectors: empty, \"abc\", the 448-bit message")
    func publishedVectors() {
        #expect(Self.digest("").hex == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(Self.digest("abc").hex == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(
            Self.digest("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq").hex
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
    }

    @Test("a million \"a\" fed in uneven pieces gives the published digest, and the hasher then starts afresh")
    func millionAsInPieces() {
        let bytes = [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)
        var random = SeededGenerator(seed: 15)
        let hasher = SHA256()
        bytes.withUnsafeBytes { all in
            var at = 0
            while at < all.count {
                let piece = min(all.count - at, Int.random(in: 0...70_000, using: &random))
                hasher.update(UnsafeRawBufferPointer(rebasing: all[at..<(at + piece)]))
                at += piece
            }
        }
        #expect(hasher.finish().hex == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
        #expect(hasher.finish() == Self.digest(""))
    }

    @Test("hex text reads back in either case and refuses anything but 64 hex digits")
    func hexText() {
        let digest = Self.digest("abc")
        #expect(SHA256Digest(hexDigits: Array(digest.hex.utf8)) == digest)
        #expect(SHA256Digest(hexDigits: Array(digest.hex.uppercased().utf8)) == digest)
        #expect(SHA256Digest(hexDigits: Array(digest.hex.dropLast().utf8)) == nil)
        #expect(SHA256Digest(hexDigits: Array((digest.hex + "0").utf8)) == nil)
        #expect(SHA256Digest(hexDigits: Array(("g" + digest.hex.dropFirst()).utf8)) == nil)
        #expect(digest.bytes.count == 32 && digest.bytes.first == 0xba && digest.bytes.last == 0xad)
        #expect(digest.bytes.withUnsafeBytes { SHA256Digest(bytes: $0) } == digest)
    }
}
