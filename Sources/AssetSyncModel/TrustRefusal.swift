/// Why a manifest is not trustworthy under the trusted keys: every reason names the key id
/// when the signature names one.
package struct TrustRefusal: ExplainedError, Equatable, CustomStringConvertible {
    package enum Reason: Equatable, Sendable {
        /// No signature file beside the manifest.
        case missing
        /// Something other than a regular file where the signature file should be (a FIFO, a directory),
        /// never read: what it is, with its name. Reported as a missing signature.
        case notAFile(String)
        /// The signature file cannot be read as minisign's format.
        case malformed(String)
        /// Signed by a key that is not trusted.
        case unknownKey
        /// The signature does not match the manifest's bytes.
        case badSignature
        /// The global signature does not match: the trusted comment was changed.
        case badTrustedComment
        /// The trusted comment carries no version, or a malformed field.
        case badVersion(String)
        /// The signature expired at this Unix time.
        case expired(at: Int64)
        /// Older than the version already accepted for the cache directory.
        case rollback(from: UInt64, to: UInt64)
    }

    package var reason: Reason
    /// The key the signature names, when it could be read.
    package var keyID: MinisignKeyID?
    package var kind: ErrorKind { .untrusted }

    package init(_ reason: Reason, keyID: MinisignKeyID? = nil) {
        self.reason = reason
        self.keyID = keyID
    }

    /// A short stable word for scripts (the JSON event's `reason`).
    package var code: String {
        switch reason {
        case .missing, .notAFile: "missing"
        case .malformed: "malformed"
        case .unknownKey: "unknown_key"
        case .badSignature: "bad_signature"
        case .badTrustedComment: "bad_trusted_comment"
        case .badVersion: "bad_version"
        case .expired: "expired"
        case .rollback: "rollback"
        }
    }

    package var description: String {
        let key = keyID.map { "key \($0)" } ?? "the key"
        switch reason {
        case .missing:
            return "it has no signature"
        case .notAFile(let problem):
            return "it has no signature: \(problem)"
        case .malformed(let problem):
            return "its signature file is not minisign's format: \(problem)"
        case .unknownKey:
            return "it is signed by \(key), which is not one of the trusted keys"
        case .badSignature:
            return "its signature by \(key) does not match its bytes: the manifest was changed after it was signed, or the signature belongs to another manifest"
        case .badTrustedComment:
            return "the trusted comment of its signature by \(key) was changed after it was signed"
        case .badVersion(let problem):
            return "the trusted comment of its signature by \(key) cannot be used: \(problem)"
        case .expired(let instant):
            return "its signature by \(key) expired at \(UTCTime.format(instant))"
        case .rollback(let from, let to):
            return "rollback from version \(from) to \(to): its signature by \(key) is valid, but older than version \(from), which this cache directory already accepted"
        }
    }
}
