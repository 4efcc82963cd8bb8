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
    /// How the file was fetched, boxed (nil for a file found current): a result is 48 bytes, not
    /// 128, and a no-op over a million files holds one for each of them.
    private var transfer: RareFields<Transfer>?

    package init(
        path: String, size: Int64, action: SyncPlan.Action, outcome: Outcome, attempts: Int = 0, transferred: Int64 = 0,
        source: DownloadSource? = nil, isFromMirror: Bool = false, failedSources: [String] = [],
        reusedFrom: String? = nil, reusedBytes: Int64? = nil
    ) {
        self.path = path
        self.size = size
        self.action = action
        self.outcome = outcome
        transfer = RareFields.make(
            Transfer(
                attempts: attempts, transferred: transferred, source: source, isFromMirror: isFromMirror, failedSources: failedSources,
                reusedFrom: reusedFrom, reusedBytes: reusedBytes ?? (reusedFrom == nil ? 0 : size)),
            empty: Transfer())
    }

    package var attempts: Int {
        get { transfer?.fields.attempts ?? 0 }
        set { change { $0.attempts = newValue } }
    }

    /// Body bytes this run received for the file, over every attempt and whatever the outcome:
    /// what went over the wire, discarded copies included.
    package var transferred: Int64 {
        get { transfer?.fields.transferred ?? 0 }
        set { change { $0.transferred = newValue } }
    }

    /// Where a committed file's bytes came from; nil for a file that was not downloaded.
    package var source: DownloadSource? {
        get { transfer?.fields.source }
        set { change { $0.source = newValue } }
    }

    /// Whether `source` is not the file's primary URL: one of its mirrors, or a manifest mirror base.
    package var isFromMirror: Bool {
        get { transfer?.fields.isFromMirror ?? false }
        set { change { $0.isFromMirror = newValue } }
    }

    /// The origins (`DownloadSource.origin`) of the sources asked for this file that failed it, in
    /// the order asked; whatever the outcome (a file served by a mirror lists the primary here).
    package var failedSources: [String] {
        get { transfer?.fields.failedSources ?? [] }
        set { change { $0.failedSources = newValue } }
    }

    /// Where a committed file's bytes were copied from on this machine instead of downloaded (an old
    /// path in DEST, or a file in another cache), as the user would name it; nil for a download.
    package var reusedFrom: String? {
        get { transfer?.fields.reusedFrom }
        set { change { $0.reusedFrom = newValue } }
    }

    /// Bytes of a committed file copied from this machine instead of downloaded: all of a file
    /// reused whole (`reusedFrom`), the chunks a delta kept from the old version, else 0.
    package var reusedBytes: Int64 {
        get { transfer?.fields.reusedBytes ?? 0 }
        set { change { $0.reusedBytes = newValue } }
    }

    private mutating func change(_ body: (inout Transfer) -> Void) {
        transfer = RareFields.changing(transfer, empty: Transfer(), body)
    }

    /// The fields of a file that was fetched, each at its default for one found current.
    private struct Transfer: Equatable, Sendable {
        var attempts = 0
        var transferred: Int64 = 0
        var source: DownloadSource?
        var isFromMirror = false
        var failedSources: [String] = []
        var reusedFrom: String?
        var reusedBytes: Int64 = 0
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
