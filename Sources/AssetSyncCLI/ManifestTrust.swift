package import AssetSyncCache
import AssetSyncManifestIO
package import AssetSyncPull
package import AssetSyncModel
import AssetSyncSystem
package import AssetSyncTransfer
import AssetSyncTrust
import Glibc

/// `--trusted-key`: with it, `pull`, `plan` and `verify` accept only a manifest whose bytes, exactly as
/// read, carry a minisign signature by one of the keys, not expired and not older than the version
/// DEST accepted last; anything else ends the run with exit status 5 before any file is touched.
package struct ManifestTrust {
    private let admission: ManifestAdmission
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
    package typealias Admitted = ManifestAdmission.Admitted

    /// The trust `--trusted-key` asks for, or nil without it. A key file that cannot be read is a usage error.
    package static func parse(_ arguments: ParsedArguments, command: String, console: Console) throws(ExitStatus) -> ManifestTrust? {
        guard let files = arguments.values["--trusted-key"] else { return nil }
        var keys: [MinisignPublicKey] = []
        do throws(UsageError) {
            if arguments.arguments.first == "-" {
                throw UsageError(message: "'--trusted-key' needs a manifest file or URL: standard input has no signature beside it", command: command)
            }
            for file in files {
                do throws(KeyFileFailure) {
                    keys += try ManifestAdmission.keys(inFile: file)
                } catch {
                    throw UsageError(message: "'--trusted-key' file \(QuotedValue.quote(file)) " + words(error), command: command)
                }
            }
        } catch {
            throw CommandLineTool.usageFailure(error, console: console)
        }
        return ManifestTrust(admission: ManifestAdmission(keys: keys, now: { Int64(time(nil)) }), json: arguments.flags.contains("--json"), console: console)
    }

    /// What a key file that gave no keys is, and what to do.
    private static func words(_ failure: KeyFileFailure) -> String {
        switch failure {
        case .unreadable(let error): return "cannot be read: \(error.reason)"
        case .malformed(let problem): return ": " + problem
        case .notRead(let reason):
            let remedy = if case .notRegular = reason {
                "save the public key in a file and pass that (a pipe, a process substitution, a device or a directory is never read)"
            } else {
                "pass the public key's own file (the .pub that 'minisign -G' writes)"
            }
            return "\(reason.words): \(remedy)"
        }
    }

    /// Reads the local manifest at `path` once, checks those bytes against `path.minisig`, and reads the
    /// manifest from the same bytes.
    package func admit(localManifest path: String) throws(ExitStatus) -> Admitted {
        try told { () throws(AdmissionFailure) in
            try admission.admit(manifestAt: path, signatureAt: path + ".minisig", displayName: path, followingLinks: true)
        }
    }

    /// Fetches the manifest at `url` and its signature at `url.minisig` under the same rules (into the
    /// cache's copies, conditionally, when there is a cache), and admits them.
    package func admit(remoteManifest url: String, cache root: CacheRoot?, options: TransferOptions, context: CommandContext) throws(ExitStatus) -> Admitted {
        try CommandSteps.fetch(url, cache: root, options: options, context: context) { manifestPath throws(ExitStatus) in
            try CommandSteps.fetch(
                ManifestAdmission.signatureURL(of: url), file: ManifestCopy.signatureName, what: "the manifest's signature",
                sizeLimit: Int64(MinisignSignature.fileSizeLimit), cache: root, options: options,
                context: context, reporting: { failure in
                    // No signature there, or a file too long to be one: the manifest is not trustworthy.
                    if failure.status == 404 || failure.status == 410 { return refuse(TrustRefusal(.missing), manifest: url) }
                    return failure.sizeLimitExceeded.map { refuse(TrustRefusal(.malformed("it is larger than \($0) bytes")), manifest: url) }
                }
            ) { signaturePath throws(ExitStatus) in
                try told { () throws(AdmissionFailure) in
                    try admission.admit(manifestAt: manifestPath, signatureAt: signaturePath, displayName: url, followingLinks: false)
                }
            }
        }
    }

    /// A remote manifest admitted and its version accepted for the cache directory `root` (whose lock is held).
    package func accept(remoteManifest url: String, root: CacheRoot, options: TransferOptions, context: CommandContext) throws(ExitStatus) -> Manifest {
        let admitted = try admit(remoteManifest: url, cache: root, options: options, context: context)
        try acceptVersion(of: admitted, root: root, manifest: url)
        return admitted.manifest
    }

    /// Refuses a manifest older than the version the cache directory accepted, then records its version
    /// as the highest accepted (when it is higher). Runs with DEST's lock held.
    package func acceptVersion(of admitted: Admitted, root: CacheRoot, manifest name: String) throws(ExitStatus) {
        try told { () throws(AdmissionFailure) in try admission.acceptVersion(of: admitted, root: root, manifest: name) }
    }

    /// Refuses a manifest older than the version the cache directory at `path` accepted, recording nothing (for `plan`).
    package func checkVersion(of admitted: Admitted, cacheAt path: String, manifest name: String) throws(ExitStatus) {
        try told { () throws(AdmissionFailure) in try admission.checkVersion(of: admitted, cacheAt: path, manifest: name) }
    }

    /// What `body` returns, or its failure told on the console and thrown as the exit status.
    private func told<Value>(_ body: () throws(AdmissionFailure) -> Value) throws(ExitStatus) -> Value {
        do {
            return try body()
        } catch {
            switch error {
            case .manifestUnreadable(let name, let failure):
                console.err("Error: \(QuotedValue.displayPath(name)): cannot read the manifest: \(failure.reason).\n")
                throw .invalidInput
            case .manifestTooLarge(let name):
                console.err("Error: \(QuotedValue.displayPath(name)): the manifest is larger than the \(ByteCount.human(Manifest.sizeLimit)) limit.\n")
                throw .invalidInput
            case .invalid(let failure):
                console.err("Error: \(failure.worded)\n")
                throw ExitStatus(failure.kind)
            case .signatureUnreadable(let path, let failure):
                console.err("Error: cannot read the signature \(QuotedValue.displayPath(path)): \(failure.reason).\n")
                throw ExitStatus(failure.kind)
            case .refused(let refusal, let name):
                throw refuse(refusal, manifest: name)
            case .versionUnreadable(let failure):
                console.err("Error: cannot read the accepted manifest version: \(failure).\n")
                throw ExitStatus(failure.kind)
            case .versionUnrecorded(let failure):
                console.err("Error: cannot record the accepted manifest version: \(failure).\n")
                throw ExitStatus(failure.kind)
            }
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
