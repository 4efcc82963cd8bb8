/// How many files of a manifest a plan found in each state, and the bytes to fetch.
public struct PlanSummary: Sendable, Equatable {
    /// Files the manifest lists.
    public var files: Int
    /// Missing from the destination.
    public var new: Int
    /// Present with another size, or something else in their place.
    public var changed: Int
    /// Present with the right size but not proven yet: a pull reads them.
    public var toCheck: Int
    /// Proven unchanged by the state index: nothing to read or fetch.
    public var current: Int
    /// In the destination but not in the manifest.
    public var extras: Int
    /// Bytes a pull downloads for certain (new and changed files), before any local reuse.
    public var bytesToDownload: Int64
}

/// What a pull did: every file's report, what it removed, and whether it was cut short.
public struct PullReport: Sendable, Equatable {
    /// A report for each file of the manifest, in the order the pull finished them (not the manifest's).
    public var files: [FileReport]
    /// Extras removed (`PullRequest.Extras.remove`).
    public var deleted: [String]
    /// Extras that could not be removed, with why.
    public var notDeleted: [String: String]
    /// Whether cancellation stopped the pull; partial downloads are kept for the next one.
    public var interrupted: Bool
    /// The generation the destination shows now, when the pull published one (`PullRequest.Layout`).
    public var publishedGeneration: String?
    /// Whether the destination now matches the manifest: every file committed or current, nothing
    /// left undeleted, not interrupted.
    public var succeeded: Bool {
        !interrupted && notDeleted.isEmpty && files.allSatisfy { $0.outcome == .committed || $0.outcome == .current }
    }
    /// The files that failed.
    public var failures: [FileReport] { files.filter { if case .failed = $0.outcome { true } else { false } } }
}

/// What a verification found, file by file.
public struct VerifyReport: Sendable, Equatable {
    /// What the verification found for one file.
    public enum Verdict: Sendable, Equatable {
        /// Its bytes match the manifest's size, CRC-32 and SHA-256.
        case good
        /// Not in the destination.
        case missing
        /// Present but wrong: why (its size, or the CRC-32 or SHA-256 it has).
        case corrupt(String)
        /// Could not be read: why.
        case unreadable(String)
    }

    /// Each file of the manifest with its verdict, in the manifest's order.
    public var files: [(path: String, verdict: Verdict)]
    /// How many files are good.
    public var good: Int { files.count { $0.verdict == .good } }
    /// Whether every file is good.
    public var succeeded: Bool { files.allSatisfy { $0.verdict == .good } }

    /// Whether both list the same paths, in the same order, with the same verdicts.
    public static func == (a: VerifyReport, b: VerifyReport) -> Bool {
        a.files.map(\.path) == b.files.map(\.path) && a.files.map(\.verdict) == b.files.map(\.verdict)
    }
}
