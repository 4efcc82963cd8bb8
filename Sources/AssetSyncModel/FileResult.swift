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
    /// Where a committed file's bytes came from; nil for a file that was not downloaded.
    public var source: DownloadSource?
    /// Whether `source` is not the file's primary URL: one of its mirrors, or a manifest mirror base.
    public var isFromMirror: Bool
    /// The origins (`DownloadSource.origin`) of the sources asked for this file that failed it, in
    /// the order asked; whatever the outcome (a file served by a mirror lists the primary here).
    public var failedSources: [String]
    /// Where a committed file's bytes were copied from on this machine instead of downloaded (an old
    /// path in DEST, or a file in another cache), as the user would name it; nil for a download.
    public var reusedFrom: String?
    /// Bytes of a committed file copied from this machine instead of downloaded: all of a file
    /// reused whole (`reusedFrom`), the chunks a delta kept from the old version, else 0.
    public var reusedBytes: Int64

    public init(
        path: String, size: Int64, action: SyncPlan.Action, outcome: Outcome, attempts: Int = 0, transferred: Int64 = 0,
        source: DownloadSource? = nil, isFromMirror: Bool = false, failedSources: [String] = [],
        reusedFrom: String? = nil, reusedBytes: Int64? = nil
    ) {
        self.reusedFrom = reusedFrom
        self.reusedBytes = reusedBytes ?? (reusedFrom == nil ? 0 : size)
        self.path = path
        self.size = size
        self.action = action
        self.outcome = outcome
        self.attempts = attempts
        self.transferred = transferred
        self.source = source
        self.isFromMirror = isFromMirror
        self.failedSources = failedSources
    }
}

/// Why a file could not be synced, in words a person can act on.
public struct Failure: ExplainedError, Sendable, Equatable {
    /// A local problem (disk, permissions) rather than a network or server one.
    public var isLocal: Bool
    public var reason: String
    public var httpStatus: Int?
    public var url: String?
    /// What else can be done about it, for the command line to word.
    public var remedy: Remedy?
    /// Each source of the file and what it answered, in the order tried, when there was more
    /// than one; empty for a file with one source (`reason` and `url` say it all).
    public var sources: [SourceFailure]

    public init(
        isLocal: Bool, reason: String, httpStatus: Int? = nil, url: String? = nil, remedy: Remedy? = nil,
        sources: [SourceFailure] = []
    ) {
        self.isLocal = isLocal
        self.reason = reason
        self.httpStatus = httpStatus
        self.url = url
        self.remedy = remedy
        self.sources = sources
    }

    public var kind: ErrorKind { isLocal ? .localIO : .remote }
    public var message: String { reason }
}
