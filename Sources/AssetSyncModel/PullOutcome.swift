/// How a pull's work on its files ended: every file's result, the extras it removed and those it
/// could not, and whether it was cut short.
package struct PullOutcome: Sendable {
    package var results: [FileResult]
    /// Extras removed, and those that could not be, with why.
    package var deletion = Deletion()
    package var interrupted: Bool
    /// A local failure (disk full, I/O error) stopped the run early.
    package var stoppedByLocalError: Bool
    /// Where the downloads' threads spent their time.
    package var steps: PullSteps

    /// What the removal of extras did.
    package struct Deletion: Sendable {
        package var removed: [String] = []
        package var failures: [(path: String, error: any ExplainedError)] = []

        package init(removed: [String] = [], failures: [(path: String, error: any ExplainedError)] = []) {
            self.removed = removed
            self.failures = failures
        }
    }

    package init(
        results: [FileResult], deletion: Deletion = Deletion(), interrupted: Bool, stoppedByLocalError: Bool,
        steps: PullSteps = PullSteps()
    ) {
        self.results = results
        self.deletion = deletion
        self.interrupted = interrupted
        self.stoppedByLocalError = stoppedByLocalError
        self.steps = steps
    }

    /// Whether the destination now matches the manifest: not interrupted, no file failed, no local
    /// failure stopped the run, and every extra asked to go went.
    package var isComplete: Bool {
        !interrupted && !stoppedByLocalError && deletion.failures.isEmpty
            && results.allSatisfy { if case .failed = $0.outcome { false } else { true } }
    }
}
