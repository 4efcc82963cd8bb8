@testable import AssetSyncCLI
import AssetSyncModel
@testable import AssetSyncTrust
import AssetSyncPull
import Foundation
import Testing
import TestSupport

/// minisign's formats and the signature check, in process: keys, signatures and trusted comments
/// read and written, and each reason a manifest is refused.
@Suite struct MinisignTests {
    /// A key pair made by `minisign -G -W` for these tests only (Tests/IntegrationTests/Fixtures).
    static func fixture(_ name: String) throws -> String {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        return try String(contentsOf: root.appendingPathComponent("IntegrationTests/Fixtures/" + name), encoding: .utf8)
    }

    static let manifest = Array("<manifest version=\"1\" base=\"http://127.0.0.1/\"/>\n".utf8)

    static func signed(_ bytes: [UInt8], comment: String, key: String = "signing-test.key") throws -> [UInt8] {
        let secret = try MinisignSecretKey(fileText: fixture(key))
        return bytes.withUnsafeBytes {
            MinisignSignature(signing: $0, with: secret, trustedComment: comment, untrustedComment: "test").file
        }
    }

    static func check(_ bytes: [UInt8], _ signature: [UInt8]?, keys: [String] = ["signing-test.pub"], now: Int64 = 1_790_000_000) throws -> SignatureCheck.Accepted {
        let check = SignatureCheck(keys: try keys.flatMap { try MinisignPublicKey.keys(inFile: fixture($0)) })
        return try bytes.withUnsafeBytes { try check.check($0, signatureFile: signature, now: now) }
    }

    static func refusal(_ bytes: [UInt8], _ signature: [UInt8]?, keys: [String] = ["signing-test.pub"], now: Int64 = 1_790_000_000) -> TrustRefusal? {
        do {
            _ = try check(bytes, signature, keys: keys, now: now)
            return nil
        } catch let refusal as TrustRefusal {
            return refusal
        } catch {
            Issue.record("unexpected \(error)")
            return nil
        }
    }

    @Test func aRemoteSignatureIsBesideTheManifestsPathBeforeItsQuery() {
        #expect(ManifestAdmission.signatureURL(of: "https://cdn.example.com/m.xml") == "https://cdn.example.com/m.xml.minisig")
        #expect(ManifestAdmission.signatureURL(of: "https://cdn.example.com/m.xml?sv=1&sig=x") == "https://cdn.example.com/m.xml.minisig?sv=1&sig=x")
        #expect(ManifestAdmission.signatureURL(of: "https://cdn.example.com/m.xml#top") == "https://cdn.example.com/m.xml.minisig#top")
    }

    @Test func base64RoundTripsAndIsStrict() {
        for count in 0...10 {
            let bytes = (0..<count).map { UInt8(truncatingIfNeeded: $0 * 37 + 11) }
            #expect((try? Base64.decode(Base64.encode(bytes).utf8).get()) == bytes)
        }
        #expect(Base64.encode(Array("Ed".utf8)) == "RWQ=")
        for bad in ["RWQ", "RW==x", "RWR=", "R===", "RW Q=", "RWQ=RWQ="] { #expect((try? Base64.decode(bad.utf8).get()) == nil, "\(bad)") }
    }

    @Test func utcTimesReadAndWriteRFC3339() {
        #expect(UTCTime.format(0) == "1970-01-01T00:00:00Z")
        #expect(UTCTime.parse("2026-12-31T00:00:00Z") == 1_798_675_200)
        #expect(UTCTime.parse("2024-02-29T23:59:59Z") == 1_709_251_199)
        for seconds in stride(from: Int64(0), to: 4_000_000_000, by: 97_654_321) { #expect(UTCTime.parse(UTCTime.format(seconds)) == seconds) }
        for bad in ["2026-02-30T00:00:00Z", "2025-02-29T00:00:00Z", "2026-12-31 00:00:00Z", "2026-12-31T24:00:00Z", "2026-12-31T00:00:00", "2026-13-01T00:00:00Z"] {
            #expect(UTCTime.parse(bad) == nil, "\(bad)")
        }
    }

    @Test func trustedCommentsGiveVersionAndExpiry() throws {
        #expect(try TrustedComment(parsing: "timestamp:1796129087\tfile:m.xml\thashed") == TrustedComment(version: 1_796_129_087, expires: nil, file: "m.xml"))
        // minisign's legacy form has no "hashed"; its file name is its own, spaces and all.
        #expect(try TrustedComment(parsing: "timestamp:5\tfile:my manifest.xml") == TrustedComment(version: 5, expires: nil, file: "my manifest.xml"))
        let ours = TrustedComment(version: 42, expires: 1_798_675_200, file: "manifest.xml")
        #expect(ours.text == "assetsync version=42 expires=2026-12-31T00:00:00Z file=manifest.xml")
        #expect(try TrustedComment(parsing: ours.text) == ours)
        #expect(TrustedComment(version: 3, expires: nil).text == "assetsync version=3")
        #expect(try TrustedComment(parsing: "version=3") == TrustedComment(version: 3, expires: nil))
        for bad in ["file:m.xml", "assetsync version=x", "version=1 expires=tomorrow", "timestamp:9 version=3", "timestamp:\tfile:m.xml", ""] {
            #expect(throws: MinisignFormatError.self, "\(bad)") { try TrustedComment(parsing: bad) }
        }
    }

    /// The names that once added or changed a field (spaces, "=", a field of their own) and others that
    /// need encoding: each comes back as it went in, and the comment holds the same fields as for a plain name.
    @Test func aHostileManifestNameRoundTripsThroughTheTrustedCommentAndAddsNoField() throws {
        let names = [
            "m expires=2001-01-01T00:00:00Z", "game version=2.json", "version=9", "expires=2001-01-01T00:00:00Z", "file=x",
            "a=b=c", "=", "100%.xml", "%", "%41", "a%20b", "  two  spaces  ", "tab\there", "bell\u{07}\u{7F}",
            "naïve 名前 🎮.xml", "e\u{301}", "assetsync", "timestamp:1", "hashed",
        ]
        for name in names {
            let comment = TrustedComment(version: 10, expires: 1_798_675_200, file: name)
            let text = comment.text
            #expect(text.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F || $0 == UInt8(ascii: " ") }, "\(text)")
            #expect(text.split(separator: " ").count == 4, "\(text)")
            #expect(text.hasPrefix("assetsync version=10 expires=2026-12-31T00:00:00Z file="), "\(text)")
            #expect(try TrustedComment(parsing: text) == comment, "\(name)")
        }
        #expect(
            TrustedComment(version: 10, expires: nil, file: "m expires=2001-01-01T00:00:00Z").text
                == "assetsync version=10 file=m%20expires%3D2001-01-01T00:00:00Z")
        #expect(TrustedComment(version: 1, expires: nil, file: "é%").text == "assetsync version=1 file=%C3%A9%25")
    }

    /// What the version before names were encoded wrote for a name with no space or "=" reads the same.
    @Test func aCommentWrittenBeforeNamesWereEncodedStillReads() throws {
        #expect(try TrustedComment(parsing: "assetsync version=10 file=m.xml") == TrustedComment(version: 10, expires: nil, file: "m.xml"))
        #expect(
            try TrustedComment(parsing: "assetsync version=7 expires=2027-01-01T00:00:00Z file=100%_off.json.gz")
                == TrustedComment(version: 7, expires: UTCTime.parse("2027-01-01T00:00:00Z"), file: "100%_off.json.gz"))
    }

    @Test func aCommentWithARepeatedOrUnknownFieldIsRefusedNamingTheField() {
        let refused = [
            "assetsync version=1 version=2": "\"version=\" appears more than once",
            "assetsync version=1 expires=2027-01-01T00:00:00Z expires=2001-01-01T00:00:00Z": "\"expires=\" appears more than once",
            "assetsync version=1 file=a file=b": "\"file=\" appears more than once",
            "assetsync version=1 release=5": "unknown field \"release=5\"",
            "assetsync version=1 hashed": "unknown field \"hashed\"",
            "version=1 assetsync": "unknown field \"assetsync\"",
            "assetsync version=1 file=m expires": "unknown field \"expires\"",
            "timestamp:5\tfile:a\tfile:b": "\"file:\" appears more than once",
            "timestamp:5\tfile:a\thashed\thashed": "\"hashed\" appears more than once",
            "timestamp:5\tfile:a\tversion=9": "unknown field \"version=9\"",
        ]
        for (text, words) in refused {
            let error = #expect(throws: MinisignFormatError.self, "\(text)") { try TrustedComment(parsing: text) }
            #expect(error?.description.contains(words) == true, "\(text): \(error?.description ?? "")")
        }
    }

    @Test func aSecretKeyMatchesItsPublicKeyAndAnEncryptedOneIsRefused() throws {
        let secret = try MinisignSecretKey(fileText: Self.fixture("signing-test.key"))
        #expect([secret.publicKey] == (try MinisignPublicKey.keys(inFile: Self.fixture("signing-test.pub"))))
        #expect(secret.publicKey.fileText == (try Self.fixture("signing-test.pub")))
        let refusal = #expect(throws: MinisignFormatError.self) { try MinisignSecretKey(fileText: Self.fixture("signing-encrypted.key")) }
        #expect(refusal?.description.contains("encrypted with a password") == true)
        #expect(throws: MinisignFormatError.self) { try MinisignSecretKey(fileText: Self.fixture("signing-test.pub")) }
    }

    @Test func aKeyFileMayHoldSeveralKeys() throws {
        let both = try Self.fixture("signing-test.pub") + "\n# the other one\n" + Self.fixture("signing-other.pub")
        let keys = try MinisignPublicKey.keys(inFile: both)
        #expect(keys.map(\.id.description) == ["AD216FE6C785E49F", "BEED6A1494362DA2"])
        #expect(throws: MinisignFormatError.self) { try MinisignPublicKey.keys(inFile: "untrusted comment: nothing\n") }
        #expect(throws: MinisignFormatError.self) { try MinisignPublicKey.keys(inFile: "RWQ=\n") }
    }

    /// A secret key made from a seed of 32 `seed` bytes under the key id `id`, read from the file
    /// `minisign -G -W` would write for it: ids are random, so two keys may share one.
    static func generatedKey(seed: UInt8, id: MinisignKeyID) throws -> MinisignSecretKey {
        let seedBytes = [UInt8](repeating: seed, count: 32)
        let secret = seedBytes + Sodium.publicKey(ofSecret: seedBytes)
        let zeros = { (count: Int) in [UInt8](repeating: 0, count: count) }
        // Algorithm, no key derivation, checksum algorithm, salt and scrypt limits, id, key, checksum (none).
        let bytes = MinisignPublicKey.algorithm + zeros(2) + Array("B2".utf8) + zeros(32 + 8 + 8) + id.bytes + secret + zeros(32)
        return try MinisignSecretKey(fileText: "untrusted comment: test key\n" + Base64.encode(bytes) + "\n")
    }

    @Test func everyTrustedKeyWithTheSignaturesKeyIDIsTried() throws {
        let id = MinisignKeyID(Array(1...8))
        let first = try Self.generatedKey(seed: 1, id: id)
        let second = try Self.generatedKey(seed: 2, id: id)
        let neither = try Self.generatedKey(seed: 3, id: id)
        #expect(first.publicKey != second.publicKey && first.publicKey.id == second.publicKey.id)
        func signature(by key: MinisignSecretKey) -> MinisignSignature {
            Self.manifest.withUnsafeBytes { MinisignSignature(signing: $0, with: key, trustedComment: "assetsync version=4", untrustedComment: "test") }
        }
        func checked(_ signature: MinisignSignature, keys: [MinisignPublicKey]) throws -> SignatureCheck.Accepted {
            try Self.manifest.withUnsafeBytes { bytes in
                try SignatureCheck(keys: keys).check(bytes, signatureFile: signature.file, now: 1_790_000_000)
            }
        }
        for keys in [[first.publicKey, second.publicKey], [second.publicKey, first.publicKey]] {
            for signer in [first, second] {
                #expect(try checked(signature(by: signer), keys: keys) == SignatureCheck.Accepted(keyID: id, comment: TrustedComment(version: 4, expires: nil)))
            }
            #expect(throws: TrustRefusal(.badSignature, keyID: id)) { try checked(signature(by: neither), keys: keys) }
            // One key's signature over the bytes with the other's over the comment: each key must have made both.
            var mixed = signature(by: second)
            mixed.globalSignature = (mixed.signature + mixed.trustedComment).withUnsafeBytes { first.sign($0) }
            #expect(throws: TrustRefusal(.badTrustedComment, keyID: id)) { try checked(mixed, keys: keys) }
        }
    }

    @Test func aGoodSignatureIsAccepted() throws {
        let signature = try Self.signed(Self.manifest, comment: "assetsync version=7 expires=2027-01-01T00:00:00Z file=m.xml")
        let accepted = try Self.check(Self.manifest, signature, keys: ["signing-other.pub", "signing-test.pub"])
        #expect(accepted.keyID.description == "AD216FE6C785E49F")
        #expect(accepted.comment == TrustedComment(version: 7, expires: UTCTime.parse("2027-01-01T00:00:00Z"), file: "m.xml"))
        #expect(try MinisignSignature(file: signature).file == signature)
        // Lines ended by CRLF read the same.
        let crlf = Array(String(decoding: signature, as: UTF8.self).replacingOccurrences(of: "\n", with: "\r\n").utf8)
        #expect(try Self.check(Self.manifest, crlf) == accepted)
        let keyWithCRLF = try Self.fixture("signing-test.pub").replacingOccurrences(of: "\n", with: "\r\n")
        #expect(try MinisignPublicKey.keys(inFile: keyWithCRLF).count == 1)
    }

    /// Any one bit flipped in the manifest, or in the signature file outside its untrusted comment, is
    /// refused; a flip inside the untrusted comment (not making a line end) changes nothing, as its name says.
    @Test func everyFlippedBitOutsideTheUntrustedCommentIsRefused() throws {
        let signature = try Self.signed(Self.manifest, comment: "assetsync version=7 expires=2027-01-01T00:00:00Z file=m.xml")
        let untrustedEnd = try #require(signature.firstIndex(of: UInt8(ascii: "\n")))
        let prefixCount = "untrusted comment: ".utf8.count
        var random = SeededGenerator(seed: 15)
        for _ in 0..<400 {
            let bit = UInt8(1) << UInt8.random(in: 0..<8, using: &random)
            var manifest = Self.manifest
            manifest[Int.random(in: 0..<manifest.count, using: &random)] ^= bit
            #expect(Self.refusal(manifest, signature)?.reason == .badSignature)
            var flipped = signature
            let index = Int.random(in: 0..<flipped.count, using: &random)
            flipped[index] ^= bit
            let harmless = (prefixCount..<untrustedEnd).contains(index) && flipped[index] != UInt8(ascii: "\n")
            #expect((Self.refusal(Self.manifest, flipped) == nil) == harmless, "byte \(index) ^ \(bit)")
        }
    }

    @Test func eachWrongSignatureIsRefusedForItsReason() throws {
        let signature = try Self.signed(Self.manifest, comment: "assetsync version=7 expires=2027-01-01T00:00:00Z")
        var tampered = Self.manifest
        tampered[3] ^= 1
        #expect(Self.refusal(tampered, signature)?.reason == .badSignature)
        #expect(Self.refusal(Self.manifest, nil)?.reason == .missing)
        #expect(Self.refusal(Self.manifest, Array("untrusted comment: x\nRWQ=\n".utf8))?.code == "malformed")
        let unknown = Self.refusal(Self.manifest, signature, keys: ["signing-other.pub"])
        #expect(unknown?.reason == .unknownKey && unknown?.keyID?.description == "AD216FE6C785E49F")
        let altered = Array(String(decoding: signature, as: UTF8.self).replacingOccurrences(of: "version=7", with: "version=9").utf8)
        #expect(Self.refusal(Self.manifest, altered)?.reason == .badTrustedComment)
        #expect(Self.refusal(Self.manifest, signature, now: 1_798_761_600)?.reason == .expired(at: 1_798_761_600))
        #expect(Self.refusal(Self.manifest, try Self.signed(Self.manifest, comment: "no version here"))?.code == "bad_version")
        let accepted = try Self.check(Self.manifest, signature)
        #expect(throws: TrustRefusal(.rollback(from: 8, to: 7), keyID: accepted.keyID)) {
            try SignatureCheck.refusesRollback(accepted, highest: 8)
        }
        try SignatureCheck.refusesRollback(accepted, highest: 7)
        try SignatureCheck.refusesRollback(accepted, highest: nil)
    }
}
