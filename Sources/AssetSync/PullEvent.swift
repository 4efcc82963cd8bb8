/// What a pull tells while it runs, in order: the plan, then for each file that is fetched its start,
/// retries and end, progress at most ten times a second, deletions, and last the whole report.
public enum PullEvent: Sendable, Equatable {
    /// What the pull found to do, before any transfer.
    case planned(PlanSummary)
    /// A file's download began (`resumingAt` bytes were already there from an earlier run).
    case started(path: String, size: Int64, resumingAt: Int64, url: String)
    /// An attempt failed and will be tried again after `afterSeconds`.
    case retrying(path: String, reason: String, afterSeconds: Double)
    /// A resumed download had to start from zero: `discardedBytes` kept from before were dropped.
    case restarted(path: String, discardedBytes: Int64, reason: String)
    /// The transfers under way.
    case progress(PullProgress)
    /// A file is done: committed, current, failed or interrupted.
    case finished(FileReport)
    /// A file the manifest does not list was removed (`PullRequest.Extras.remove`).
    case deleted(path: String)
    /// Something to tell that did not stop the pull (an old generation that could not be removed; a
    /// file of a plain destination that could not be carried into its first generation).
    case warning(String)
    /// The pull published a new generation: the destination shows it now.
    case published(generation: String)
    /// The pull is over; the last event of an `AssetSync.events(of:)` sequence.
    case completed(PullReport)
}

/// How far the transfers have come.
public struct PullProgress: Sendable, Equatable {
    /// Downloads finished, committed or failed. Files found current or copied from this machine
    /// are not downloads, and are counted in neither `filesDone` nor `filesTotal`.
    public var filesDone: Int
    /// Downloads in all.
    public var filesTotal: Int
    /// Bytes of the downloads now on disk, those an earlier run left to resume included.
    public var bytesDone: Int64
    /// Bytes of the downloads in all.
    public var bytesTotal: Int64
}
