package import AssetSyncModel

/// A minisign public key: the base64 of "Ed", the 8-byte key id and the 32-byte Ed25519 key,
/// on a line of its own, after an optional `untrusted comment:` line.
package struct MinisignPublicKey: Equatable, Sendable {
    package let id: MinisignKeyID
    /// The Ed25519 public key.
    let key: [UInt8]

    static let algorithm = Array("Ed".utf8)
    static let untrustedCommentPrefix = "untrusted comment:"

    package init(id: MinisignKeyID, key: [UInt8]) {
        self.id = id
        self.key = key
    }

    /// The key spelled by one base64 line, as `minisign -P` takes it.
    package init(base64 line: some StringProtocol) throws(MinisignFormatError) {
        guard let bytes = try? Base64.decode(line.utf8).get() else { throw MinisignFormatError("a public key line is not base64") }
        guard bytes.count == 2 + MinisignKeyID.byteCount + 32 else {
            throw MinisignFormatError("a public key is 42 bytes of base64, this line holds \(bytes.count)")
        }
        guard Array(bytes[0..<2]) == Self.algorithm else { throw MinisignFormatError("a public key must start with the Ed25519 algorithm \"Ed\"") }
        self.init(id: MinisignKeyID(bytes[2..<10]), key: Array(bytes[10...]))
    }

    /// Every key in the text of a key file: one or more keys, each a base64 line, with `untrusted comment:`
    /// lines, `#` comments and blank lines between them ignored.
    package static func keys(inFile text: String) throws(MinisignFormatError) -> [MinisignPublicKey] {
        var keys: [MinisignPublicKey] = []
        for (index, line) in lines(of: text).enumerated() {
            let trimmed = line.drop { $0 == " " || $0 == "\t" }
            if trimmed.isEmpty || trimmed.hasPrefix("#") || trimmed.hasPrefix(untrustedCommentPrefix) { continue }
            do {
                keys.append(try MinisignPublicKey(base64: trimmed))
            } catch {
                throw MinisignFormatError("line \(index + 1): \(error.description)")
            }
        }
        guard !keys.isEmpty else { throw MinisignFormatError("it holds no minisign public key") }
        return keys
    }

    /// The lines of a key file, ended by "\n" or "\r\n" (which Swift counts as one character).
    static func lines(of text: String) -> [Substring] {
        text.split(omittingEmptySubsequences: false) { $0 == "\n" || $0 == "\r\n" }
    }

    /// The key's file text, as `minisign -G` writes it.
    package var fileText: String {
        "untrusted comment: minisign public key \(id)\n" + Base64.encode(Self.algorithm + id.bytes + key) + "\n"
    }

    /// Whether `signature` is this key's Ed25519 signature of `message`.
    func verifies(_ signature: [UInt8], of message: UnsafeRawBufferPointer) -> Bool {
        Sodium.verify(signature, of: message, key: key)
    }
}
