package import AssetSyncModel
/// The check of a manifest's bytes against the trusted keys: a signature by one of them (any key that
/// bears the signature's key id) over exactly those bytes, its trusted comment intact and carrying a
/// version, and not expired. Whether the version is older than one already accepted is the cache
/// directory's business (`refusesRollback`).
package struct SignatureCheck: Sendable {
    package let keys: [MinisignPublicKey]

    package init(keys: [MinisignPublicKey]) { self.keys = keys }

    /// What a signature that passed vouches for.
    package struct Accepted: Equatable, Sendable {
        package var keyID: MinisignKeyID
        package var comment: TrustedComment
    }

    /// Checks `manifest` against the bytes of its signature file (nil when there is none), at Unix time `now`.
    package func check(_ manifest: UnsafeRawBufferPointer, signatureFile: [UInt8]?, now: Int64) throws(TrustRefusal) -> Accepted {
        guard let signatureFile else { throw TrustRefusal(.missing) }
        let signature: MinisignSignature
        do {
            signature = try MinisignSignature(file: signatureFile)
        } catch {
            throw TrustRefusal(.malformed(error.description))
        }
        let id = signature.keyID
        // A key id is a name, not a proof: two trusted keys may bear the same one. Each is tried, and the
        // signature holds when one of them made both its signatures.
        let candidates = keys.filter { $0.id == id }
        guard !candidates.isEmpty else { throw TrustRefusal(.unknownKey, keyID: id) }
        var failures: [MinisignSignature.Failure] = []
        for key in candidates {
            guard let failure = signature.failure(of: manifest, by: key) else { break }
            failures.append(failure)
        }
        if failures.count == candidates.count {
            // Every key failed. One that made the signature over the bytes but not the one over the comment
            // says the comment was changed.
            throw TrustRefusal(failures.contains(.trustedComment) ? .badTrustedComment : .badSignature, keyID: id)
        }
        let comment: TrustedComment
        do {
            comment = try TrustedComment(parsing: String(decoding: signature.trustedComment, as: UTF8.self))
        } catch {
            throw TrustRefusal(.badVersion(error.description), keyID: id)
        }
        if let expires = comment.expires, now >= expires { throw TrustRefusal(.expired(at: expires), keyID: id) }
        return Accepted(keyID: id, comment: comment)
    }

    /// Refuses `accepted` when its version is below `highest`, the highest one accepted before; an equal
    /// version passes (the same manifest pulled again).
    package static func refusesRollback(_ accepted: Accepted, highest: UInt64?) throws(TrustRefusal) {
        if let highest, accepted.comment.version < highest {
            throw TrustRefusal(.rollback(from: highest, to: accepted.comment.version), keyID: accepted.keyID)
        }
    }
}
