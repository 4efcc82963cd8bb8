package import AssetSyncModel
package import AssetSyncSystem

/// What the transfer engine hands back to the pipeline that runs it: it asks for a sink
/// per file, hands over downloads whose bytes are proven (the delegate commits them, at
/// once or in groups), and tells what happens to each file.
package protocol TransferEngineDelegate: AnyObject {
    /// The sink for `request`'s bytes; a thrown failure fails the file.
    func openSink(for request: TransferEngine.Request) throws(Failure) -> any DownloadSink
    /// `download`'s bytes are complete and proven; it waits with the delegate for `settleProven`.
    func proven(_ download: Download)
    /// Whether downloads handed to `proven` are still waiting.
    var holdsProven: Bool { get }
    /// Commits the waiting downloads when a group is due (`idle`: nothing runs or could start now), or
    /// whenever some wait with `force`. Nil when it committed nothing; else each file's result,
    /// and whether a local error stops the run.
    func settleProven(idle: Bool, force: Bool) -> (results: [FileResult], stopsTheRun: Bool)?
    /// Stops committing when the run stops on a local error: waits for the commits under way and
    /// returns their files' results, and hands back the downloads still waiting, uncommitted.
    func takeProven() -> (committed: [FileResult], uncommitted: [Download])
    /// Where the run's threads spend their time; the engine adds the transfer thread's steps.
    var steps: StepTimes { get }

    func started(path: String, size: Int64, resumingAt offset: Int64, url: String)
    func retrying(path: String, reason: String, after delay: Double)
    /// A resume became a download from zero without a retry: `discarded` bytes were dropped.
    func restarted(path: String, discarded: Int64, reason: String)
    func finished(_ result: FileResult)
    /// The transfers under way, at most ten times a second.
    func progress(_ snapshot: ProgressSnapshot)
}
