/// Receives a pull's progress. Called from the transfer thread, so it must be thread-safe.
package protocol PullEvents: Sendable {
    /// What the pull found to do, before any transfer.
    func planned(_ plan: SyncPlan)
    func started(path: String, size: Int64, resumingAt offset: Int64, url: String)
    func retrying(path: String, reason: String, after delay: Double)
    /// A resume became a download from zero without a retry: `discarded` bytes kept from before were dropped.
    func restarted(path: String, discarded: Int64, reason: String)
    func finished(_ result: FileResult)
    /// `--delete` removed a file the manifest does not list.
    func deleted(path: String)
    /// The transfers under way, at most ten times a second.
    func progress(_ snapshot: ProgressSnapshot)
}
