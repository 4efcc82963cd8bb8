import AssetSyncModel
import AssetSyncSystem
import AssetSyncTrust
import Glibc

/// The signing side of `--trusted-key`: a minisign secret key with the version and expiry its trusted
/// comment will carry, writing `MANIFEST.minisig` (for `assetsync sign` and `manifest --sign`).
struct ManifestSigning {
    private let key: MinisignSecretKey
    private let comment: TrustedComment

    /// The options `sign` and `manifest --sign` share, with their placeholders.
    static let valueOptions = ["--version": "<n>", "--expires": "<when>"]
    /// Their help lines.
    static let help = """
          --version <n>           The manifest's version, a whole number that must grow with each
                                  release: a cache directory refuses one older than it accepted.
                                  (default: the current Unix time, as minisign's timestamp)
          --expires <when>        When the signature stops being accepted, a UTC time such as
                                  2026-12-31T00:00:00Z or a span from now such as 30d or 12h.
                                  (default: never)
        """

    /// The signing `arguments` ask for with the secret key file `keyPath`; a bad value is a usage error.
    static func parse(_ arguments: ParsedArguments, keyPath: String, command: String, console: Console) throws(ExitStatus) -> ManifestSigning {
        let now = Int64(time(nil))
        let version: UInt64
        let expires: Int64?
        do throws(UsageError) {
            if let text = arguments.value("--version") {
                guard let value = UInt64(text) else {
                    throw UsageError(message: "'--version' must be a whole number, not \(QuotedValue.quote(text))", command: command)
                }
                version = value
            } else {
                version = UInt64(max(0, now))
            }
            expires = try arguments.value("--expires").map { text throws(UsageError) in
                guard let instant = instant(text, now: now) else {
                    throw UsageError(
                        message: "'--expires' must be a UTC time such as 2026-12-31T00:00:00Z or a span such as 30d or 12h, not \(QuotedValue.quote(text))",
                        command: command)
                }
                return instant
            }
        } catch {
            throw CommandLineTool.usageFailure(error, console: console)
        }
        let text = String(decoding: try secretKeyFile(keyPath, console: console), as: UTF8.self)
        let key: MinisignSecretKey
        do {
            key = try MinisignSecretKey(fileText: text) {
                PasswordPrompt.ask("Password for the secret key \(QuotedValue.quote(keyPath)): ")
            }
        } catch {
            console.err("Error: the secret key \(QuotedValue.quote(keyPath)): \(error).\n")
            throw .invalidInput
        }
        if let expires, expires <= now {
            console.err("Warning: --expires \(UTCTime.format(expires)) is already past: the signature will be refused.\n")
        }
        return ManifestSigning(key: key, comment: TrustedComment(version: version, expires: expires))
    }

    /// The most bytes a secret key file may have: minisign's is two lines, under 300 bytes.
    static let secretKeyFileSizeLimit = 4096

    /// The bytes of the secret key file at `path`, read as every file under `.assetsync/` is (never blocking,
    /// a regular file only, bounded; a link to one is followed); anything else is told and is exit status 2.
    private static func secretKeyFile(_ path: String, console: Console) throws(ExitStatus) -> [UInt8] {
        let read: RegularFileRead
        do {
            read = try RegularFileRead.read(path, limit: secretKeyFileSizeLimit, followingLinks: true, display: path)
        } catch {
            console.err("Error: cannot read the secret key \(QuotedValue.quote(path)): \(error.reason).\n")
            throw .invalidInput
        }
        switch read {
        case .bytes(let bytes):
            return bytes
        case .notRead(let reason):
            let remedy = if case .notRegular = reason {
                "keep the key in a file only the signing account can read, and pass that (a pipe, a device or a directory is never read)"
            } else {
                "pass the secret key's own file (the .key that 'minisign -G' writes)"
            }
            console.err("Error: the secret key \(QuotedValue.quote(path)) \(reason.words): \(remedy).\n")
            throw .invalidInput
        }
    }

    /// `text` as an instant: a UTC time, or a span from `now` in days (`30d`), hours (`12h`) or minutes (`45m`).
    private static func instant(_ text: String, now: Int64) -> Int64? {
        if let absolute = UTCTime.parse(text) { return absolute }
        let units: [Character: Int64] = ["d": 86_400, "h": 3600, "m": 60]
        guard let unit = text.last.flatMap({ units[$0] }), let count = Int64(text.dropLast()), count >= 0,
              count <= Int64(100 * 366) * 86_400 / unit
        else { return nil }
        return now + count * unit
    }

    /// Signs `bytes`, the manifest at `path`, and writes the signature to `path.minisig`.
    func sign(_ bytes: UnsafeRawBufferPointer, of path: String, console: Console) throws(ExitStatus) {
        var named = comment
        named.file = String(PathName.split(path).name)
        let signature = MinisignSignature(
            signing: bytes, with: key, trustedComment: named.text, untrustedComment: "signature from assetsync secret key")
        let output = path + ".minisig"
        do {
            try AtomicFile.write(String(decoding: signature.file, as: UTF8.self), to: output)
        } catch {
            console.err("Error: cannot write \(QuotedValue.quote(output)): \(error).\n")
            throw ExitStatus(error.kind)
        }
        let expiry = comment.expires.map { ", expires \(UTCTime.format($0))" } ?? ", never expires"
        console.err("Wrote \(output): signed by key \(key.id), version \(comment.version)\(expiry).\n")
    }
}
