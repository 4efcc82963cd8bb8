package import AssetSyncCache
package import AssetSyncModel
package import AssetSyncSystem

/// `rollback`: DEST shows the generation before the current one again, once that one is found as
/// its pull left it (see `GenerationStore.problems`). The caller opens the store, holds its lock,
/// and has run `GenerationPull.finishInterruptedSteps`.
package enum GenerationRollback {
    /// Points DEST back; returns the generation it shows now.
    package static func run(_ store: GenerationStore, reading: Bool) throws(RollbackFailure) -> String {
        let previous: String?
        do { previous = try store.previous() } catch { throw .rolling(store.destPath, error) }
        guard let previous else { throw .noneBefore(store.destPath) }
        let problems = store.problems(of: previous, reading: reading)
        guard problems.isEmpty else {
            throw .notAsLeft(store.destPath, generation: previous, problems: problems, reading: reading, current: store.current())
        }
        do { try store.rollBack(to: previous) } catch { throw .rolling(store.destPath, error) }
        return previous
    }
}

/// Why DEST could not be rolled back.
package enum RollbackFailure: ExplainedError, CustomStringConvertible {
    /// No generation is kept before the current one.
    case noneBefore(String)
    /// The one before is not as its pull left it: each problem names a file.
    case notAsLeft(String, generation: String, problems: [String], reading: Bool, current: String?)
    case rolling(String, SystemError)

    package var kind: ErrorKind {
        switch self {
        case .noneBefore: .invalidInput
        case .notAsLeft: .localIO
        case .rolling(_, let error): error.kind
        }
    }

    package var description: String {
        switch self {
        case .noneBefore(let dest): "\(dest) has no generation before the current one to go back to"
        case .notAsLeft(let dest, let generation, let problems, let reading, let current):
            "\(dest) was not rolled back: \(generation) is not as its pull left it" + (reading ? "" : " (by size and stat, nothing read)") + ": "
                + problems.joined(separator: "; ") + ". It still shows \(current ?? "the current generation"); "
                + "pull the manifest you want instead, which reuses what is intact"
        case .rolling(let dest, let error): "cannot roll \(dest) back: \(error.description)"
        }
    }
}
