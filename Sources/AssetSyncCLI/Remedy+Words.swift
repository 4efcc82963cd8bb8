import AssetSyncModel

extension Remedy {
    /// The remedy as the end of a failure's message, naming the option that applies it.
    var words: String {
        switch self {
        case .deleteClearsObstruction(onlyWhenEmpty: true): return " (or, if it holds no files, run with --delete)"
        case .deleteClearsObstruction(onlyWhenEmpty: false): return " or run with --delete"
        }
    }
}

extension Failure {
    /// The reason with its remedy, as a person reads it.
    var reasonWithRemedy: String { reason + (remedy?.words ?? "") }
}
