/// What else a person can do about a failure, beyond its message: the command line words
/// it, since it names the command line's options.
package enum Remedy: Sendable, Equatable {
    /// Deleting what the manifest does not list clears the obstruction; a directory is
    /// cleared only when it holds no files (`onlyWhenEmpty`).
    case deleteClearsObstruction(onlyWhenEmpty: Bool)
    /// Credentials go in a netrc file or a request header, never in a URL.
    case credentialsOutsideTheURL
}
