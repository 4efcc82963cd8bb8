/// What a pull did with one manifest entry.
package struct FileResult: Sendable, Equatable {
    package enum Outcome: Sendable, Equatable {
        /// Downloaded, verified and committed.
        case committed
        /// Already present and proven by its CRC-32.
        case current
        /// Boxed: a failure takes about a hundred bytes, and a no-op over a million files holds a
        /// result for each of them, none failed.
        indirect case failed(Failure)
        /// Stopped by a signal; the partial is kept for resume.
        case interrupted
    }

    package var path: String
    package var size: Int64
    /// What the plan said: new, changed or check.
    package var action: SyncPlan.Action
    package var outcome: Outcome
    package var attempts: Int
    /// Body bytes this run received for the file, over every attempt and whatever the outcome:
    /// what went over the wire, discarded copies included.
    package var transferred: Int64
    /// Where a committed file's bytes came from; nil for a file that was not downloaded.
    package var source: DownloadSource?
    /// Whether `source` is not the file's primary URL: one of its mirrors, or a manifest mirror base.
    package var isFromMirror: Bool
    /// The origins (`DownloadSource.origin`) of the sources asked for this file that failed it, in
    /// the order asked; whatever the outcome (a file served by a mirror lists the primary here).
    package var failedSources: [String]
    /// Where a committed file's bytes were copied from on this machine instead of downloaded (an old
    /// path in DEST, or a file in another cache), as the user would name it; nil for a download.
    package var reusedFrom: String?
    /// Bytes of a committed file copied from this machine instead of downloaded: all of a file
    /// reused whole (`reusedFrom`), the chunks a delta kept from the old version, else 0.
    package var reusedBytes: Int64

    package init(
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
package struct Failure: ExplainedError, Sendable, Equatable {
    /// A local problem (disk, permissions) rather than a network or server one.
    package var isLocal: Bool
    package var reason: String
    package var httpStatus: Int?
    package var url: String?
    /// What else can be done about it, for the command line to word.
    package var remedy: Remedy?
    /// Each source of the file and what it answered, in the order tried, when there was more
    /// than one; empty for a file with one source (`reason` and `url` say it all).
    package var sources: [SourceFailure]
    /// The bound an answer went past, when that ended the fetch of a document whose size nothing
    /// gives (a remote manifest, its signature).
    package var sizeLimitExceeded: Int64?

    package init(
        isLocal: Bool, reason: String, httpStatus: Int? = nil, url: String? = nil, remedy: Remedy? = nil,
        sources: [SourceFailure] = [], sizeLimitExceeded: Int64? = nil
    ) {
        self.isLocal = isLocal
        self.reason = reason
        self.httpStatus = httpStatus
        self.url = url
        self.remedy = remedy
        self.sources = sources
        self.sizeLimitExceeded = sizeLimitExceeded
    }

    package var kind: ErrorKind { isLocal ? .localIO : .remote }
    package var message: String { reason }
}
