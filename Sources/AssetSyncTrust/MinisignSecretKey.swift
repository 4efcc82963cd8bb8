package import AssetSyncModel

/// A minisign secret key file: an `untrusted comment:` line, then the base64 of the signature algorithm
/// "Ed", the key derivation "Sc" (scrypt, encrypted by a password) or two zero bytes (none, `minisign -W`),
/// the checksum algorithm "B2", a 32-byte salt, the scrypt limits (8 bytes each), then the key id (8),
/// the Ed25519 secret key (64: seed and public key) and a BLAKE2b-256 checksum (32) of "Ed", the id and
/// the key. An encrypted key is XORed with the scrypt stream of its password, salt and limits; its
/// checksum then tells a wrong password.
/// A class, so that its secret is wiped once, when the last reference goes; the file's decoded bytes,
/// the password and the scrypt stream are wiped as soon as they have served.
package final class MinisignSecretKey {
    package let id: MinisignKeyID
    /// Ed25519's 64-byte secret key.
    private var secret: [UInt8]

    private static let layoutCount = 2 + 2 + 2 + 32 + 8 + 8 + MinisignKeyID.byteCount + 64 + 32

    /// The most memory scrypt may take for a key: minisign's default is 1 GiB; a file asking more is refused.
    static let memoryLimitCap: UInt64 = 2 << 30

    /// Reads a key file; `password` is asked (once) only when the key is encrypted, and returns nil
    /// when there is no way to ask.
    package init(fileText text: String, password: () -> [UInt8]? = { nil }) throws(MinisignFormatError) {
        let lines = MinisignPublicKey.lines(of: text).filter { !$0.isEmpty }
        guard lines.count >= 2, lines[0].hasPrefix(MinisignPublicKey.untrustedCommentPrefix) else {
            throw MinisignFormatError("not a minisign secret key: it must be an \"untrusted comment:\" line and a base64 line")
        }
        guard var bytes = try? Base64.decode(lines[1].utf8).get(), bytes.count == Self.layoutCount else {
            throw MinisignFormatError("not a minisign secret key: its second line must be the base64 of \(Self.layoutCount) bytes")
        }
        defer { Sodium.wipe(&bytes) }
        guard Array(bytes[0..<2]) == MinisignPublicKey.algorithm, Array(bytes[4..<6]) == Array("B2".utf8) else {
            throw MinisignFormatError("not a minisign Ed25519 secret key (algorithms \"Ed\" and \"B2\" expected)")
        }
        let encrypted: Bool
        switch (bytes[2], bytes[3]) {
        case (0, 0):
            encrypted = false
        case (UInt8(ascii: "S"), UInt8(ascii: "c")):
            encrypted = true
            try Self.decrypt(&bytes, password: password)
        default:
            throw MinisignFormatError("its key derivation is neither none nor scrypt (\"Sc\")")
        }
        let id = MinisignKeyID(bytes[54..<62])
        let secret = Array(bytes[62..<126])
        let checksum = Array(bytes[126..<158])
        // minisign 0.11 leaves the checksum of an unencrypted key zero; any other value must be right.
        if encrypted || checksum.contains(where: { $0 != 0 }) {
            let expected = (MinisignPublicKey.algorithm + id.bytes + secret).withUnsafeBytes { Sodium.blake2b($0, length: 32) }
            guard expected == checksum else {
                throw MinisignFormatError(encrypted ? "wrong password" : "its checksum does not match: the file is damaged")
            }
        }
        guard Sodium.publicKey(ofSecret: secret) == Array(secret[32...]) else {
            throw MinisignFormatError("its two halves do not belong together: the file is damaged")
        }
        self.id = id
        self.secret = secret
    }

    deinit { Sodium.wipe(&secret) }

    /// Decrypts the key id, key and checksum (bytes 54 to 157) of an encrypted key file's `bytes` in place.
    private static func decrypt(_ bytes: inout [UInt8], password: () -> [UInt8]?) throws(MinisignFormatError) {
        let opsLimit = bytes[38..<46].reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        let memoryLimit = bytes[46..<54].reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        guard memoryLimit <= memoryLimitCap, opsLimit <= UInt64(UInt32.max) else {
            throw MinisignFormatError("it asks for more than \(memoryLimitCap >> 30) GiB or 2^32 operations to decrypt")
        }
        guard var typed = password() else {
            throw MinisignFormatError(
                "it is encrypted with a password, and there is no terminal to ask it on; sign on a terminal, "
                    + "use a key made without a password ('minisign -G -W') kept where only the signing account can read it, or sign "
                    + "with 'minisign -S -t \"assetsync version=N expires=YYYY-MM-DDTHH:MM:SSZ\"'")
        }
        defer { Sodium.wipe(&typed) }
        guard var stream = Sodium.scrypt(
            password: typed, salt: Array(bytes[6..<38]), opsLimit: opsLimit, memoryLimit: Int(memoryLimit), length: 104)
        else { throw MinisignFormatError("cannot derive its decryption key (scrypt: out of memory?)") }
        defer { Sodium.wipe(&stream) }
        for index in 0..<104 { bytes[54 + index] ^= stream[index] }
    }

    /// The public key that verifies this key's signatures.
    package var publicKey: MinisignPublicKey { MinisignPublicKey(id: id, key: Array(secret[32...])) }

    /// Ed25519's signature of `message` by this key.
    func sign(_ message: UnsafeRawBufferPointer) -> [UInt8] { Sodium.sign(message, secret: secret) }
}
