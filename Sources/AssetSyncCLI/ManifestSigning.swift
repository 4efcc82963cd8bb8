import AssetSync

/// The signing side of `--trusted-key`: a minisign secret key with the version and expiry its trusted
/// comment will carry, writing `MANIFEST.minisig` (for `assetsync sign` and `manifest --sign`).
struct ManifestSigning {
    private let key: SigningKey
    private let version: UInt64
    private let expires: Int64?

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
        let now = AssetSync.wallClock()
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
        let key: SigningKey
        do {
            key = try AssetSync.signingKey(at: keyPath) { PasswordPrompt.ask("Password for the secret key \(QuotedValue.quote(keyPath)): ") }
        } catch {
            throw PublishFailureReport(console: console, command: command).status(of: error)
        }
        if let expires, expires <= now {
            console.err("Warning: --expires \(UTCTime.format(expires)) is already past: the signature will be refused.\n")
        }
        return ManifestSigning(key: key, version: version, expires: expires)
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

    /// Signs the manifest read from `path` and writes `path.minisig` (`assetsync sign`).
    func sign(_ manifest: ManifestToSign, of path: String, console: Console) throws(ExitStatus) {
        try told(console, command: "sign") { () throws(PublishFailure) in
            try AssetSync.sign(manifest, of: path, with: key, version: version, expires: expires)
        }
    }

    /// Signs `text`, the manifest just written to `path`, and writes `path.minisig` (`manifest --sign`).
    func sign(text: String, of path: String, console: Console) throws(ExitStatus) {
        try told(console, command: "manifest") { () throws(PublishFailure) in
            try AssetSync.sign(text: text, of: path, with: key, version: version, expires: expires)
        }
    }

    /// Runs `body`, which writes a signature and gives its path, and tells what it did, or why it failed.
    private func told(_ console: Console, command: String, _ body: () throws(PublishFailure) -> String) throws(ExitStatus) {
        let output: String
        do { output = try body() } catch { throw PublishFailureReport(console: console, command: command).status(of: error) }
        let expiry = expires.map { ", expires \(UTCTime.format($0))" } ?? ", never expires"
        console.err("Wrote \(output): signed by key \(key.id), version \(version)\(expiry).\n")
    }
}
