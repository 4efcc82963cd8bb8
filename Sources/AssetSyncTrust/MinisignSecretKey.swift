/// A minisign secret key file: an `untrusted comment:` line, then the base64 of the signature algorithm
/// "Ed", the key derivation "Sc" (scrypt, encrypted by a password) or two zero bytes (none, `minisign -W`),
/// the checksum algorithm "B2", a 32-byte salt, the scrypt limits (8 bytes each), then the key id (8),
/// the Ed25519 secret key (64: seed and public key) and a BLAKE2b-256 checksum (32) of "Ed", the id and
/// the key. Only unencrypted keys are read; an encrypted one is refused with what to do instead.
/// A class, so that the one copy of the secret is wiped when it goes.
package final class MinisignSecretKey {
    package let id: MinisignKeyID
    /// Ed25519's 64-byte secret key.
    private var secret: [UInt8]

    private static let layoutCount = 2 + 2 + 2 + 32 + 8 + 8 + MinisignKeyID.byteCount + 64 + 32

    package init(fileText text: String) throws(MinisignFormatError) {
        let lines = MinisignPublicKey.lines(of: text).filter { !$0.isEmpty }
        guard lines.count >= 2, lines[0].hasPrefix(MinisignPublicKey.untrustedCommentPrefix) else {
            throw MinisignFormatError("not a minisign secret key: it must be an \"untrusted comment:\" line and a base64 line")
        }
        guard var bytes = Base64.decode(lines[1]), bytes.count == Self.layoutCount else {
            throw MinisignFormatError("not a minisign secret key: its second line must be the base64 of \(Self.layoutCount) bytes")
        }
        defer { Sodium.wipe(&bytes) }
        guard Array(bytes[0..<2]) == MinisignPublicKey.algorithm, Array(bytes[4..<6]) == Array("B2".utf8) else {
            throw MinisignFormatError("not a minisign Ed25519 secret key (algorithms \"Ed\" and \"B2\" expected)")
        }
        switch (bytes[2], bytes[3]) {
        case (0, 0):
            break
        case (UInt8(ascii: "S"), UInt8(ascii: "c")):
            throw MinisignFormatError(
                "the secret key is encrypted with a password, which assetsync does not ask for; sign with "
                    + "'minisign -S -t \"assetsync version=N expires=YYYY-MM-DDTHH:MM:SSZ\"', or use a key made "
                    + "without a password ('minisign -G -W'), kept where only the signing account can read it")
        default:
            throw MinisignFormatError("the secret key's key derivation is neither none nor scrypt (\"Sc\")")
        }
        let id = MinisignKeyID(bytes[54..<62])
        let secret = Array(bytes[62..<126])
        let checksum = Array(bytes[126..<158])
        // minisign 0.11 leaves the checksum of an unencrypted key zero; any other value must be right.
        if checksum.contains(where: { $0 != 0 }) {
            let expected = (MinisignPublicKey.algorithm + id.bytes + secret).withUnsafeBytes { Sodium.blake2b($0, length: 32) }
            guard expected == checksum else { throw MinisignFormatError("the secret key's checksum does not match: the file is damaged") }
        }
        guard Sodium.publicKey(ofSecret: secret) == Array(secret[32...]) else {
            throw MinisignFormatError("the secret key's two halves do not belong together: the file is damaged")
        }
        self.id = id
        self.secret = secret
    }

    deinit { Sodium.wipe(&secret) }

    /// The public key that verifies this key's signatures.
    package var publicKey: MinisignPublicKey { MinisignPublicKey(id: id, key: Array(secret[32...])) }

    /// Ed25519's signature of `message` by this key.
    func sign(_ message: UnsafeRawBufferPointer) -> [UInt8] { Sodium.sign(message, secret: secret) }
}
