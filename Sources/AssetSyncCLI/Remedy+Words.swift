import AssetSync

extension Remedy {
    /// The remedy as the end of a failure's message, naming the option that applies it.
    var words: String {
        switch self {
        case .deleteClearsObstruction(onlyWhenEmpty: true): return " (or, if it holds no files, run with --delete)"
        case .deleteClearsObstruction(onlyWhenEmpty: false): return " or run with --delete"
        case .credentialsOutsideTheURL: return "; use --netrc or --header"
        }
    }
}

extension ExplainedError {
    /// The message with its remedy, as a person reads it.
    var messageWithRemedy: String { message + (remedy?.words ?? "") }
}

extension ManifestError {
    /// The description with the remedy worded after the problem.
    var worded: String { description(remedyWords: remedy?.words ?? "") }
}
