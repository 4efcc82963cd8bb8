import AssetSyncCache
import AssetSyncModel
import AssetSyncPull
import AssetSyncSystem

/// The layers' results in the public reports' terms.
extension PlanSummary {
    init(_ plan: SyncPlan) {
        var counts: [SyncPlan.Action: Int] = [:]
        for item in plan.items { counts[item.action, default: 0] += 1 }
        self.init(
            files: plan.items.count - (counts[.extra] ?? 0), new: counts[.new] ?? 0, changed: counts[.changed] ?? 0,
            toCheck: counts[.check] ?? 0, current: counts[.current] ?? 0, extras: counts[.extra] ?? 0, bytesToDownload: plan.bytesToDownload)
    }
}

extension FileReport {
    init(_ result: FileResult) {
        let outcome: Outcome
        switch result.outcome {
        case .committed: outcome = .committed
        case .current: outcome = .current
        case .interrupted: outcome = .interrupted
        case .failed(let failure):
            let lines = failure.sources.map { "\($0.url): \($0.reason)" }
            outcome = .failed(reason: lines.isEmpty ? failure.reason + (failure.url.map { " (\($0))" } ?? "") : failure.reason + ": " + lines.joined(separator: "; "))
        }
        self.init(
            path: result.path, size: result.size, outcome: outcome, bytesTransferred: result.transferred, reusedFrom: result.reusedFrom,
            fromMirror: result.isFromMirror)
    }
}

extension PullReport {
    init(_ outcome: PullOutcome) {
        self.init(
            files: outcome.results.map(FileReport.init), deleted: outcome.deletion.removed,
            notDeleted: Dictionary(outcome.deletion.failures.map { ($0.path, $0.error.message) }, uniquingKeysWith: { first, _ in first }),
            interrupted: outcome.interrupted, publishedGeneration: nil)
    }
}

extension VerifyReport {
    init(manifest: Manifest, verdicts: [ContentVerdict]) {
        files = zip(manifest.entries, verdicts).map { entry, verdict in
            let judged: Verdict
            switch verdict {
            case .proven: judged = .good
            case .missing: judged = .missing
            case .notARegularFile: judged = .corrupt("not a regular file")
            case .wrongSize(let size): judged = .corrupt("size is \(size) bytes, expected \(entry.size)")
            case .wrongCRC(let crc): judged = .corrupt("CRC-32 is \(CRC32Text.hex(crc)), expected \(entry.crc32.map(CRC32Text.hex) ?? "none")")
            case .wrongSHA256(let digest): judged = .corrupt("SHA-256 is \(digest.hex), expected \(entry.sha256?.hex ?? "none")")
            case .unreadable(let error): judged = .unreadable(error.message)
            }
            return (entry.path, judged)
        }
    }
}
