/// Why describing a directory as a manifest, or signing one, failed, in terms every caller can
/// word: the library without flag names, the command line with them.
package enum PublishFailure: Error {
    /// What should be described is not a directory.
    case notADirectory(String)
    /// The base URL is not one a manifest may have.
    case invalidBase(ManifestError)
    /// The directory (its path) could not be walked or a file in it read.
    case unreadable(String, any ExplainedError)
    /// A file in the directory has a name no manifest may list (the directory's path, why).
    case unrepresentable(String, any ExplainedError)
    /// The file at the path could not be written.
    case unwritable(String, any ExplainedError)
    /// The manifest to sign could not be read (its name, why), is larger than its limit, or is not a valid one.
    case manifestUnreadable(String, reason: String)
    case manifestTooLarge(String)
    case manifest(ManifestError)
    /// The secret key file could not be read (its path, why).
    case keyUnreadable(String, reason: String)
    /// The secret key file was not read: why in words; `notARegularFile` when it is no file at all.
    case keyNotRead(String, words: String, notARegularFile: Bool)
    /// The secret key file is not one, or its password is wrong: why.
    case keyInvalid(String, reason: String)
    /// The bucket prefix (`s3://BUCKET/PREFIX/`) could not be described: listed, asked or read,
    /// or a key in it is no manifest path.
    case bucket(String, any ExplainedError)
    /// The bucket to describe names a store whose settings cannot be used.
    case objectStore(any ExplainedError)
    /// A stop was requested (a signal, a cancelled task); nothing was written.
    case interrupted
}
