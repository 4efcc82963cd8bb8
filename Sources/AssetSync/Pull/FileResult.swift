/// What a pull did with one manifest entry.
public struct FileResult: Sendable, Equatable {
    public enum Outcome: Sendable, Equatable {
        /// Downloaded, verified and committed.
        case committed
        /// Already present and proven by its CRC-32.
        case current
        case failed(Failure)
        /// Stopped by a signal; the partial is kept for resume.
        case interrupted
    }

    public var path: String
    public var size: Int64
    /// What the plan said: new, changed or check.
    public var action: SyncPlan.Action
    public var outcome: Outcome
    public var attempts: Int
    /// Body bytes this run received for the file, over every attempt and whatever the outcome:
    /// what went over the wire, discarded copies included.
    public var transferred: Int64

    public init(path: String, size: Int64, action: SyncPlan.Action, outcome: Outcome, attempts: Int = 0, transferred: Int64 = 0) {
        self.path = path
        self.size = size
        self.action = action
        self.outcome = outcome
        self.attempts = attempts
        self.transferred = transferred
    }
}

/// Why a file could not be synced, in words a person can act on.
public struct Failure: Sendable, Equatable {
    /// A local problem (disk, permissions) rather than a network or server one.
    public var isLocal: Bool
    public var reason: String
    public var httpStatus: Int?
    public var url: String?

    public init(isLocal: Bool, reason: String, httpStatus: Int? = nil, url: String? = nil) {
        self.isLocal = isLocal
        self.reason = reason
        self.httpStatus = httpStatus
        self.url = url
    }
}

/// Receives a pull's progress. Called from the transfer thread, so it must be thread-safe.
public protocol PullReporter: Sendable {
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
