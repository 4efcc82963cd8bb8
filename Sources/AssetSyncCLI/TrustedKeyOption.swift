/// `--trusted-key`: with it, `pull`, `plan` and `verify` accept only a manifest whose bytes, exactly as
/// read, carry a minisign signature by one of the keys, not expired and not older than the version
/// DEST accepted last; anything else ends the run with exit status 5 before any file is touched.
package enum TrustedKeyOption {
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
}
