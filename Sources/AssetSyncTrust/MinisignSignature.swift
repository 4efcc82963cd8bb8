package import AssetSyncModel

/// A `.minisig` file: an `untrusted comment:` line; the base64 of the algorithm ("ED": Ed25519 over
/// the BLAKE2b-512 of the file; "Ed": over the file itself, minisign's legacy form), the key id and
/// the 64-byte signature; a `trusted comment:` line; and the base64 of the global signature, made
/// over the signature and the trusted comment's text, which is what makes that comment trusted.
package struct MinisignSignature: Equatable, Sendable {
    /// What the signature covers.
    package enum Algorithm: Equatable, Sendable {
        /// BLAKE2b-512 of the file ("ED"), what minisign 0.10 and later make.
        case prehashed
        /// The file itself ("Ed").
        case legacy
    }

    package var algorithm: Algorithm
    package var keyID: MinisignKeyID
    package var signature: [UInt8]
    /// The trusted comment's bytes, after `trusted comment: `: exactly what the global signature covers.
    package var trustedComment: [UInt8]
    package var globalSignature: [UInt8]
    package var untrustedComment: [UInt8]

    static let untrustedPrefix = "untrusted comment: "
    static let trustedPrefix = "trusted comment: "
    /// The longest trusted comment minisign writes or reads.
    package static let trustedCommentLimit = 8192
    /// The most bytes a signature file may have: four lines, the comments bounded.
    package static let fileSizeLimit = 16 << 10

    /// Reads a `.minisig` file's bytes: lines end at "\n" (a "\r" before it is dropped), and the
    /// comments are kept as bytes, since the global signature is made over bytes.
    package init(file bytes: [UInt8]) throws(MinisignFormatError) {
        var lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
            .map { $0.last == UInt8(ascii: "\r") ? $0.dropLast() : $0 }
        while lines.last?.isEmpty == true { lines.removeLast() }
        guard lines.count == 4 else {
            throw MinisignFormatError("a signature file has four lines (untrusted comment, signature, trusted comment, global signature), this one has \(lines.count)")
        }
        guard lines[0].starts(with: Self.untrustedPrefix.utf8) else { throw MinisignFormatError("line 1 must start with \"\(Self.untrustedPrefix)\"") }
        guard lines[2].starts(with: Self.trustedPrefix.utf8) else { throw MinisignFormatError("line 3 must start with \"\(Self.trustedPrefix)\"") }
        guard let signatureBytes = try? Base64.decode(lines[1]).get(),
              signatureBytes.count == 2 + MinisignKeyID.byteCount + 64
        else {
            throw MinisignFormatError("line 2 must be the base64 of 74 bytes (algorithm, key id, signature)")
        }
        guard let global = try? Base64.decode(lines[3]).get(), global.count == 64 else {
            throw MinisignFormatError("line 4 must be the base64 of the 64-byte global signature")
        }
        switch (signatureBytes[0], signatureBytes[1]) {
        case (UInt8(ascii: "E"), UInt8(ascii: "D")): algorithm = .prehashed
        case (UInt8(ascii: "E"), UInt8(ascii: "d")): algorithm = .legacy
        default: throw MinisignFormatError("the signature algorithm must be \"ED\" or \"Ed\" (Ed25519)")
        }
        let comment = Array(lines[2].dropFirst(Self.trustedPrefix.utf8.count))
        guard comment.count <= Self.trustedCommentLimit else {
            throw MinisignFormatError("the trusted comment is longer than \(Self.trustedCommentLimit) bytes")
        }
        keyID = MinisignKeyID(signatureBytes[2..<10])
        signature = Array(signatureBytes[10...])
        trustedComment = comment
        globalSignature = global
        untrustedComment = Array(lines[0].dropFirst(Self.untrustedPrefix.utf8.count))
    }

    /// Signs `message` with `key` (prehashed, as minisign does by default) and `trustedComment`.
    package init(signing message: UnsafeRawBufferPointer, with key: MinisignSecretKey, trustedComment: String, untrustedComment: String) {
        precondition(!trustedComment.contains("\n") && !untrustedComment.contains("\n"), "a comment is one line")
        algorithm = .prehashed
        keyID = key.id
        signature = Self.covered(message, by: .prehashed).withUnsafeBytes { key.sign($0) }
        self.trustedComment = Array(trustedComment.utf8)
        globalSignature = (signature + self.trustedComment).withUnsafeBytes { key.sign($0) }
        self.untrustedComment = Array(untrustedComment.utf8)
    }

    /// The file's bytes, as `minisign -S` writes them.
    package var file: [UInt8] {
        let algorithmBytes = Array((algorithm == .prehashed ? "ED" : "Ed").utf8)
        let newline = UInt8(ascii: "\n")
        return Array(Self.untrustedPrefix.utf8) + untrustedComment + [newline]
            + Array(Base64.encode(algorithmBytes + keyID.bytes + signature).utf8) + [newline]
            + Array(Self.trustedPrefix.utf8) + trustedComment + [newline] + Array(Base64.encode(globalSignature).utf8) + [newline]
    }

    /// Whether `key` made both signatures: the one over `message` and the one over the trusted comment.
    /// - Returns: nil when both hold; else which does not.
    package func failure(of message: UnsafeRawBufferPointer, by key: MinisignPublicKey) -> Failure? {
        let signed = Self.covered(message, by: algorithm)
        guard signed.withUnsafeBytes({ key.verifies(signature, of: $0) }) else { return .signature }
        guard (signature + trustedComment).withUnsafeBytes({ key.verifies(globalSignature, of: $0) }) else { return .trustedComment }
        return nil
    }

    /// Which of the two signatures does not hold.
    package enum Failure: Equatable, Sendable {
        /// The signature over the file: the file is not the one signed.
        case signature
        /// The global signature: the trusted comment was changed.
        case trustedComment
    }

    /// The bytes the first signature is made over: the file's BLAKE2b-512, or the file itself.
    private static func covered(_ message: UnsafeRawBufferPointer, by algorithm: Algorithm) -> [UInt8] {
        switch algorithm {
        case .prehashed: Sodium.blake2b(message, length: 64)
        case .legacy: Array(message)
        }
    }
}
