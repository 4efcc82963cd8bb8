package import AssetSyncCache
import AssetSyncManifestIO
package import AssetSyncModel
package import AssetSyncSystem
package import AssetSyncTrust

/// Admission of a signed manifest: its bytes, read once, must carry a minisign signature by one of
/// the trusted keys, not expired, and not older than the version the destination accepted last; the
/// manifest is then parsed from the very bytes that were checked. Every failure is one
/// `AdmissionFailure`, which the caller tells in its own words.
package struct ManifestAdmission: Sendable {
    package let check: SignatureCheck
    /// Wall-clock seconds since the epoch, for expiry.
    let now: @Sendable () -> Int64

    /// A manifest whose signature passed, read from the very bytes that were checked.
    package struct Admitted: Sendable {
        package var manifest: Manifest
        package var accepted: SignatureCheck.Accepted
    }

    package init(keys: [MinisignPublicKey], now: @escaping @Sendable () -> Int64) {
        check = SignatureCheck(keys: keys)
        self.now = now
    }

    /// The most bytes a file of public keys may have: thousands of keys.
    package static let keyFileSizeLimit = 1 << 20

    /// The keys in the key file `file`, read as every file under `.assetsync/` is (never blocking, a
    /// regular file only, bounded); a link to one is followed.
    package static func keys(inFile file: String) throws(KeyFileFailure) -> [MinisignPublicKey] {
        let read: RegularFileRead
        do {
            read = try RegularFileRead.read(file, limit: keyFileSizeLimit, followingLinks: true, display: file)
        } catch {
            throw .unreadable(error)
        }
        switch read {
        case .bytes(let bytes):
            do { return try MinisignPublicKey.keys(inFile: String(decoding: bytes, as: UTF8.self)) } catch { throw .malformed(error.description) }
        case .notRead(let reason):
            throw .notRead(reason)
        }
    }

    /// Where the signature of the manifest at `url` is: `.minisig` added to its path, before any query
    /// or fragment (so that a token in the query is sent for both).
    package static func signatureURL(of url: String) -> String {
        guard let end = url.firstIndex(where: { $0 == "?" || $0 == "#" }) else { return url + ".minisig" }
        return url[..<end] + ".minisig" + url[end...]
    }

    /// Checks the manifest at `path` against the signature at `signaturePath` (nil: a remote manifest
    /// that has none), where a link is followed only with `followingLinks` (never for the copies under
    /// `.assetsync/`), and reads the manifest from the bytes checked.
    package func admit(
        manifestAt path: String, signatureAt signaturePath: String?, displayName: String, followingLinks: Bool
    ) throws(AdmissionFailure) -> Admitted {
        let read: MemoryFile?
        do { read = try MemoryFile.read(path: path, limit: Int(Manifest.sizeLimit)) } catch { throw .manifestUnreadable(displayName, error) }
        guard let memory = read else { throw .manifestTooLarge(displayName) }
        let signature = try signaturePath.flatMap { path throws(AdmissionFailure) in
            try signatureFile(at: path, manifest: displayName, followingLinks: followingLinks)
        }
        let accepted: SignatureCheck.Accepted
        do {
            accepted = try check.check(memory.bytes, signatureFile: signature, now: now())
        } catch {
            throw .refused(error, manifest: displayName)
        }
        do {
            return Admitted(manifest: try ManifestReader.read(descriptor: memory.fd, name: displayName), accepted: accepted)
        } catch {
            throw .invalid(error)
        }
    }

    /// Refuses a manifest older than the version the cache directory accepted, then records its version
    /// as the highest accepted (when it is higher). Runs with DEST's lock held.
    package func acceptVersion(of admitted: Admitted, root: CacheRoot, manifest name: String) throws(AdmissionFailure) {
        let highest: UInt64?
        do { highest = try AcceptedVersion.highest(in: root) } catch { throw .versionUnreadable(error) }
        try refuseRollback(admitted, highest: highest, manifest: name)
        guard highest.map({ admitted.accepted.comment.version > $0 }) ?? true else { return }
        do {
            try AcceptedVersion.record(admitted.accepted.comment.version, keyID: admitted.accepted.keyID.description, in: root)
        } catch {
            throw .versionUnrecorded(error)
        }
    }

    /// Refuses a manifest older than the version the cache directory at `path` accepted, recording nothing (for `plan`).
    package func checkVersion(of admitted: Admitted, cacheAt path: String, manifest name: String) throws(AdmissionFailure) {
        let highest: UInt64?
        do { highest = try AcceptedVersion.highest(cacheAt: path) } catch { throw .versionUnreadable(error) }
        try refuseRollback(admitted, highest: highest, manifest: name)
    }

    private func refuseRollback(_ admitted: Admitted, highest: UInt64?, manifest name: String) throws(AdmissionFailure) {
        do { try SignatureCheck.refusesRollback(admitted.accepted, highest: highest) } catch { throw .refused(error, manifest: name) }
    }

    /// The bytes of the signature file at `path`; nil when there is none. It is read as every file under
    /// `.assetsync/` is (never blocking, a regular file only, bounded), a link followed only with
    /// `followingLinks`: anything else there is refused as no signature, saying what it is.
    private func signatureFile(at path: String, manifest name: String, followingLinks: Bool) throws(AdmissionFailure) -> [UInt8]? {
        let read: RegularFileRead
        do {
            read = try RegularFileRead.read(path, limit: MinisignSignature.fileSizeLimit, followingLinks: followingLinks, display: path)
        } catch {
            throw .signatureUnreadable(path, error)
        }
        switch read {
        case .bytes(let bytes):
            return bytes
        case .notRead(.missing):
            return nil
        case .notRead(let reason):
            let refusal = if case .notRegular = reason {
                TrustRefusal(.notAFile("\(QuotedValue.displayPath(path)) \(reason.words)"))
            } else {
                TrustRefusal(.malformed("it \(reason.words)"))
            }
            throw .refused(refusal, manifest: name)
        }
    }
}

/// Why a signed manifest was not admitted.
package enum AdmissionFailure: Error {
    case manifestUnreadable(String, SystemError)
    case manifestTooLarge(String)
    case invalid(ManifestError)
    case signatureUnreadable(String, SystemError)
    /// Not trustworthy: the refusal says why (missing, wrong, expired, rolled back).
    case refused(TrustRefusal, manifest: String)
    case versionUnreadable(SystemError)
    case versionUnrecorded(SystemError)
}

/// Why a file of trusted public keys gave no keys.
package enum KeyFileFailure: Error {
    case unreadable(SystemError)
    case notRead(RegularFileRead.Reason)
    case malformed(String)
}
