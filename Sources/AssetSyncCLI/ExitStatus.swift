package import AssetSync

/// The process exit codes, which scripts act on (listed in the README and in `--help`).
package enum ExitStatus: Int32, Sendable, Error {
    /// DEST matches the manifest.
    case success = 0
    /// Some files could not be synced; the rest were committed, nothing is corrupt.
    case someFilesFailed = 1
    /// Invalid command line or manifest; nothing was downloaded.
    case invalidInput = 2
    /// Local I/O failure: disk full, permission, fsync.
    case localIOFailure = 3
    /// Another run holds DEST's lock.
    case locked = 4
    /// The manifest is not trustworthy: signature missing, wrong, expired, or older than one already accepted.
    case untrusted = 5
    /// Interrupted; partial files kept for resume.
    case interrupted = 130
}

extension ExitStatus {
    /// The one place where a kind of failure becomes an exit status.
    package init(_ kind: ErrorKind) {
        switch kind {
        case .invalidInput: self = .invalidInput
        case .remote: self = .someFilesFailed
        case .localIO: self = .localIOFailure
        case .lockHeld: self = .locked
        case .untrusted: self = .untrusted
        }
    }
}
