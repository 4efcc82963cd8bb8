/// What a pull's results add up to: files and bytes by what became of them, the bytes received and
/// copied from this machine, the extras removed, and what each source served and failed. The one
/// tally that the summary line, the JSON summary and the metrics file are made from.
package struct PullTally: Sendable {
    /// What became of a file.
    package enum Kind: String, CaseIterable, Sendable {
        case new, updated, current, failed, interrupted
    }

    /// Files by what became of them; every kind is there, 0 when none.
    package private(set) var files: [Kind: Int] = [:]
    /// Bytes of those files (their manifest sizes), by kind.
    package private(set) var bytes: [Kind: Int64] = [:]
    /// Body bytes received, discarded ones included.
    package private(set) var transferred: Int64 = 0
    /// Committed files copied from bytes already on the machine instead of downloaded.
    package private(set) var reusedFiles = 0
    /// Bytes of those files, and of the chunks deltas kept from old versions.
    package private(set) var reusedBytes: Int64 = 0
    /// Extras removed.
    package private(set) var deleted = 0
    /// The files that failed, with why, in the order they finished.
    package private(set) var failures: [(path: String, failure: Failure)] = []
    /// Verified files each source served, and their bytes, by the source's origin (the base or mirror
    /// base it belongs to, else the URL's scheme, host and port).
    package private(set) var sourceFiles: [String: Int] = [:]
    package private(set) var sourceBytes: [String: Int64] = [:]
    /// Files each source was asked for and failed (a file a mirror then served included).
    package private(set) var sourceFailures: [String: Int] = [:]

    package init(_ outcome: PullOutcome) {
        for kind in Kind.allCases {
            files[kind] = 0
            bytes[kind] = 0
        }
        for result in outcome.results {
            let kind: Kind
            switch result.outcome {
            case .committed: kind = result.action == .new ? .new : .updated
            case .current: kind = .current
            case .failed(let failure):
                kind = .failed
                failures.append((result.path, failure))
            case .interrupted: kind = .interrupted
            }
            files[kind, default: 0] += 1
            bytes[kind, default: 0] += result.size
            transferred += result.transferred
            if case .committed = result.outcome {
                if result.reusedFrom != nil { reusedFiles += 1 }
                reusedBytes += result.reusedBytes
                if let source = result.source {
                    sourceBytes[source.origin, default: 0] += result.size
                    sourceFiles[source.origin, default: 0] += 1
                }
            }
            for origin in result.failedSources { sourceFailures[origin, default: 0] += 1 }
        }
        deleted = outcome.deletion.removed.count
    }

    package var new: Int { files[.new] ?? 0 }
    package var updated: Int { files[.updated] ?? 0 }
    package var current: Int { files[.current] ?? 0 }
    package var interrupted: Int { files[.interrupted] ?? 0 }
}
