package import AssetSyncCache
import AssetSyncManifestIO
package import AssetSyncModel
import AssetSyncSystem
package import AssetSyncTransfer
import AssetSyncTrust
import Glibc

/// `--trusted-key`: with it, `pull`, `plan` and `verify` accept only a manifest whose bytes, exactly as
/// read, carry a minisign signature by one of the keys, not expired and not older than the version
/// DEST accepted last; anything else ends the run with exit status 5 before any file is touched.
package struct ManifestTrust {
    private let check: SignatureCheck
    private let json: Bool
    private let console: Console

    package static let valueOptions = ["--trusted-key": "<file>"]
    package static let repeatable: Set<String> = ["--trusted-key"]
    package static let usage = "[--trusted-key <file> ...]"
    /// The lines of the OPTIONS section of each command's help.
    package static let help = """
          --trusted-key <file>    Accept only a manifest signed (minisign's format, MANIFEST.minisig
                                  beside it or URL.minisig) by a public key in this file, not
                                  expired and not older than the version DEST accepted last;
                                  else exit 5 before anything is downloaded. May be repeated,
                                  and a file may hold several keys (see docs/security.md).
        """

    /// A manifest whose signature passed, read from the very bytes that were checked.
    package struct Admitted: Sendable {
        package var manifest: Manifest
        fileprivate var accepted: SignatureCheck.Accepted
    }

    /// The trust `--trusted-key` asks for, or nil without it. A key file that cannot be read is a usage error.
    package static func parse(_ arguments: ParsedArguments, command: String, console: Console) throws(ExitStatus) -> ManifestTrust? {
        guard let files = arguments.values["--trusted-key"] else { return nil }
        var keys: [MinisignPublicKey] = []
        do throws(UsageError) {
            if arguments.arguments.first == "-" {
                throw UsageError(message: "'--trusted-key' needs a manifest file or URL: standard input has no signature beside it", command: command)
            }
            for file in files {
                let text = String(decoding: try keyFile(file, command: command), as: UTF8.self)
                do {
                    keys += try MinisignPublicKey.keys(inFile: text)
                } catch {
                    throw UsageError(message: "'--trusted-key' file \(QuotedValue.quote(file)): \(error.description)", command: command)
                }
            }
        } catch {
            throw CommandLineTool.usageFailure(error, console: console)
        }
        return ManifestTrust(check: SignatureCheck(keys: keys), json: arguments.flags.contains("--json"), console: console)
    }

    /// The most bytes a `--trusted-key` file may have: thousands of keys.
    static let keyFileSizeLimit = 1 << 20

    /// The bytes of the key file `file`, read as every file under `.assetsync/` is (never blocking, a regular
    /// file only, bounded); a link to one is followed. Anything else is a usage error that says what is there.
    private static func keyFile(_ file: String, command: String) throws(UsageError) -> [UInt8] {
        let read: RegularFileRead
        do {
            read = try RegularFileRead.read(file, limit: keyFileSizeLimit, followingLinks: true, display: file)
        } catch {
            throw UsageError(message: "'--trusted-key' file \(QuotedValue.quote(file)) cannot be read: \(error.reason)", command: command)
        }
        switch read {
        case .bytes(let bytes):
            return bytes
        case .notRead(let reason):
            let remedy = if case .notRegular = reason {
                "save the public key in a file and pass that (a pipe, a process substitution, a device or a directory is never read)"
            } else {
                "pass the public key's own file (the .pub that 'minisign -G' writes)"
            }
            throw UsageError(message: "'--trusted-key' file \(QuotedValue.quote(file)) \(reason.words): \(remedy)", command: command)
        }
    }

    /// Reads the local manifest at `path` once, checks those bytes against `path.minisig`, and reads the
    /// manifest from the same bytes.
    package func admit(localManifest path: String) throws(ExitStatus) -> Admitted {
        try admit(manifestAt: path, signatureAt: path + ".minisig", displayName: path, followingLinks: true)
    }

    /// Fetches the manifest at `url` and its signature at `url.minisig` under the same rules (into the
    /// cache's copies, conditionally, when there is a cache), and admits them.
    package func admit(remoteManifest url: String, cache root: CacheRoot?, options: TransferOptions, context: CommandContext) throws(ExitStatus) -> Admitted {
        try CommandSteps.fetch(url, cache: root, options: options, context: context) { manifestPath throws(ExitStatus) in
            try CommandSteps.fetch(
                Self.signatureURL(of: url), file: ManifestCopy.signatureName, what: "the manifest's signature",
                sizeLimit: Int64(MinisignSignature.fileSizeLimit), cache: root, options: options,
                context: context, reporting: { failure in
                    // No signature there, or a file too long to be one: the manifest is not trustworthy.
                    if failure.status == 404 || failure.status == 410 { return refuse(TrustRefusal(.missing), manifest: url) }
                    return failure.sizeLimitExceeded.map { refuse(TrustRefusal(.malformed("it is larger than \($0) bytes")), manifest: url) }
                }
            ) { signaturePath throws(ExitStatus) in
                try admit(manifestAt: manifestPath, signatureAt: signaturePath, displayName: url, followingLinks: false)
            }
        }
    }

    /// A remote manifest admitted and its version accepted for the cache directory `root` (whose lock is held).
    package func accept(remoteManifest url: String, root: CacheRoot, options: TransferOptions, context: CommandContext) throws(ExitStatus) -> Manifest {
        let admitted = try admit(remoteManifest: url, cache: root, options: options, context: context)
        try acceptVersion(of: admitted, root: root, manifest: url)
        return admitted.manifest
    }

    /// Where the signature of the manifest at `url` is: `.minisig` added to its path, before any query
    /// or fragment (so that a token in the query is sent for both).
    static func signatureURL(of url: String) -> String {
        guard let end = url.firstIndex(where: { $0 == "?" || $0 == "#" }) else { return url + ".minisig" }
        return url[..<end] + ".minisig" + url[end...]
    }

    /// Refuses a manifest older than the version the cache directory accepted, then records its version
    /// as the highest accepted (when it is higher). Runs with DEST's lock held.
    package func acceptVersion(of admitted: Admitted, root: CacheRoot, manifest name: String) throws(ExitStatus) {
        let highest = try recorded { () throws(SystemError) in try AcceptedVersion.highest(in: root) }
        try refuseRollback(admitted, highest: highest, manifest: name)
        guard highest.map({ admitted.accepted.comment.version > $0 }) ?? true else { return }
        do {
            try AcceptedVersion.record(admitted.accepted.comment.version, keyID: admitted.accepted.keyID.description, in: root)
        } catch {
            console.err("Error: cannot record the accepted manifest version: \(error).\n")
            throw ExitStatus(error.kind)
        }
    }

    /// Refuses a manifest older than the version the cache directory at `path` accepted, recording nothing (for `plan`).
    package func checkVersion(of admitted: Admitted, cacheAt path: String, manifest name: String) throws(ExitStatus) {
        try refuseRollback(admitted, highest: recorded { () throws(SystemError) in try AcceptedVersion.highest(cacheAt: path) }, manifest: name)
    }

    /// The version `read` finds recorded, or why it cannot be read told and thrown.
    private func recorded(_ read: () throws(SystemError) -> UInt64?) throws(ExitStatus) -> UInt64? {
        do {
            return try read()
        } catch {
            console.err("Error: cannot read the accepted manifest version: \(error).\n")
            throw ExitStatus(error.kind)
        }
    }

    private func refuseRollback(_ admitted: Admitted, highest: UInt64?, manifest name: String) throws(ExitStatus) {
        do {
            try SignatureCheck.refusesRollback(admitted.accepted, highest: highest)
        } catch {
            throw refuse(error, manifest: name)
        }
    }

    /// Checks the manifest at `path` against the signature at `signaturePath`, where a link is followed
    /// only with `followingLinks` (never for the copy under `.assetsync/`).
    private func admit(manifestAt path: String, signatureAt signaturePath: String, displayName: String, followingLinks: Bool) throws(ExitStatus) -> Admitted {
        let memory = try CommandSteps.readOnce(path, displayName: displayName, console: console)
        let signature = try signatureFile(at: signaturePath, manifest: displayName, followingLinks: followingLinks)
        let accepted: SignatureCheck.Accepted
        do {
            accepted = try check.check(memory.bytes, signatureFile: signature, now: Int64(time(nil)))
        } catch {
            throw refuse(error, manifest: displayName)
        }
        let manifest = try CommandSteps.reported(
            Result { () throws(ManifestError) in try ManifestReader.read(descriptor: memory.fd, name: displayName) }, console: console)
        return Admitted(manifest: manifest, accepted: accepted)
    }

    /// The bytes of the signature file at `path`; nil when there is none. It is read as every file under
    /// `.assetsync/` is (never blocking, a regular file only, bounded), a link followed only with
    /// `followingLinks`: anything else there is refused as no signature, saying what it is.
    private func signatureFile(at path: String, manifest name: String, followingLinks: Bool) throws(ExitStatus) -> [UInt8]? {
        let read: RegularFileRead
        do {
            read = try RegularFileRead.read(path, limit: MinisignSignature.fileSizeLimit, followingLinks: followingLinks, display: path)
        } catch {
            console.err("Error: cannot read the signature \(QuotedValue.displayPath(path)): \(error.reason).\n")
            throw ExitStatus(error.kind)
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
            throw refuse(refusal, manifest: name)
        }
    }

    /// Tells why the manifest is refused (on stderr, and as an `untrusted` event with `--json`) and
    /// returns the exit status to end with.
    private func refuse(_ refusal: TrustRefusal, manifest name: String) -> ExitStatus {
        let advice: String
        switch refusal.reason {
        case .missing:
            advice = "Sign it ('assetsync sign', or 'minisign -S') and publish the .minisig beside it."
        case .notAFile:
            advice = "Put the signature file itself there ('assetsync sign' or 'minisign -S' writes one): only a regular file is read."
        case .unknownKey:
            advice = "If you trust that key, pass its public key file with --trusted-key."
        case .malformed, .badSignature, .badTrustedComment:
            advice = "Fetch it again from its publisher; if this persists, the manifest or its signature was tampered with."
        case .badVersion:
            advice = "Sign it with a trusted comment that carries 'assetsync version=N' ('assetsync sign' does)."
        case .expired:
            advice = "Ask its publisher to sign it again with a later --expires."
        case .rollback:
            advice = "Someone may be replaying an old manifest. To go back on purpose, publish it signed with a higher version."
        }
        console.err("Error: the manifest \(QuotedValue.displayPath(name)) is not trustworthy: \(refusal.description). No file was downloaded or changed. \(advice)\n")
        if json {
            var line = JSONLine(type: "untrusted")
            line.add("manifest", name)
            line.add("reason", refusal.code)
            line.add("key_id", refusal.keyID?.description)
            line.add("message", refusal.description)
            line.add("exit_code", Int64(ExitStatus.untrusted.rawValue))
            console.out(line.line)
        }
        return .untrusted
    }
}
