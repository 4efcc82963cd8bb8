/// What kind of failure an error is: it decides how a run ends, and the command line maps it
/// to an exit status in one place.
package enum ErrorKind: Sendable, Equatable {
    /// The command line, a manifest or a path given is wrong; nothing was changed.
    case invalidInput
    /// The remote side (network, server) failed: what it should have sent is missing.
    case remote
    /// A local system call failed: disk full, permission, I/O.
    case localIO
    /// Another run holds the cache directory's lock.
    case lockHeld
    /// The manifest is not trustworthy: its signature is missing, wrong, expired, or older than one accepted.
    case untrusted
}
