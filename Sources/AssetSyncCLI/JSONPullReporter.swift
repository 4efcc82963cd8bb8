package import AssetSync
import Synchronization

/// `--json`: one JSON object per line for machines, on stdout; the field names
/// are documented in docs/events.md and pinned by tests.
package final class JSONPullReporter: PullEvents {
    private let write: @Sendable (String) -> Void
    private let clock: @Sendable () -> Double
    private let lastProgress: Mutex<Double>
    package static let progressInterval = 1.0

    package init(write: @escaping @Sendable (String) -> Void, clock: @escaping @Sendable () -> Double) {
        self.write = write
        self.clock = clock
        lastProgress = Mutex(clock())
    }

    package func planned(_ plan: SyncPlan) {
        var line = JSONLine(type: "plan")
        line.add("files", plan.items.count - plan.count(.extra))
        for action in SyncPlan.Action.allCases { line.add(action.rawValue, plan.count(action)) }
        line.add("bytes_to_download", plan.bytesToDownload)
        line.add("bytes_to_check", plan.bytes(.check))
        write(line.line)
    }

    package func started(path: String, size: Int64, resumingAt offset: Int64, url: String) {
        var line = JSONLine(type: "start")
        line.add("path", path)
        line.add("size", size)
        line.add("offset", offset)
        line.add("url", url)
        write(line.line)
    }

    package func retrying(path: String, reason: String, after delay: Double) {
        var line = JSONLine(type: "retry")
        line.add("path", path)
        line.add("reason", reason)
        line.add("delay_ms", Int64((delay * 1000).rounded()))
        write(line.line)
    }

    package func restarted(path: String, discarded: Int64, reason: String) {
        var line = JSONLine(type: "restart")
        line.add("path", path)
        line.add("discarded", discarded)
        line.add("reason", reason)
        write(line.line)
    }

    package func finished(_ result: FileResult) {
        switch result.outcome {
        case .committed:
            var line = JSONLine(type: "done")
            line.add("path", result.path)
            line.add("size", result.size)
            line.add("action", result.action == .new ? "new" : "updated")
            line.add("bytes_transferred", result.transferred)
            line.add("attempts", result.attempts)
            line.add("url", result.source?.url)
            line.add("mirror", result.source?.origin)
            line.add("primary", !result.isFromMirror)
            line.add("reused_from", result.reusedFrom)
            line.add("reused_bytes", result.reusedBytes)
            write(line.line)
        case .failed(let failure):
            var line = JSONLine(type: "failed")
            line.add("path", result.path)
            line.add("size", result.size)
            line.add("reason", failure.messageWithRemedy)
            line.add("http_status", failure.httpStatus.map(Int64.init))
            line.add("url", failure.url)
            line.add("attempts", result.attempts)
            line.add("local", failure.isLocal)
            line.add("sources", objects: failure.sources.map { [("url", $0.url), ("reason", $0.reason)] })
            write(line.line)
        case .current, .interrupted:
            break
        }
    }

    /// The `untrusted` event: why the manifest was refused, and the exit status the command ends with.
    package func refused(_ refusal: TrustRefusal, manifest: String) {
        var line = JSONLine(type: "untrusted")
        line.add("manifest", manifest)
        line.add("reason", refusal.code)
        line.add("key_id", refusal.keyID?.description)
        line.add("message", refusal.description)
        line.add("exit_code", Int64(ExitStatus.untrusted.rawValue))
        write(line.line)
    }

    package func deleted(path: String) {
        var line = JSONLine(type: "deleted")
        line.add("path", path)
        write(line.line)
    }

    package func progress(_ snapshot: ProgressSnapshot) {
        let now = clock()
        let due = lastProgress.withLock { last in
            guard now - last >= Self.progressInterval else { return false }
            last = now
            return true
        }
        guard due else { return }
        var line = JSONLine(type: "progress")
        line.add("files_done", snapshot.filesDone)
        line.add("files_total", snapshot.filesTotal)
        line.add("bytes_done", snapshot.bytesDone)
        line.add("bytes_total", snapshot.bytesTotal)
        write(line.line)
    }

    package func summarize(_ outcome: PullOutcome, seconds: Double, exitCode: Int32) {
        let totals = PullTally(outcome)
        var line = JSONLine(type: "summary")
        line.add("new", totals.new)
        line.add("updated", totals.updated)
        line.add("current", totals.current)
        line.add("failed", totals.failures.count)
        line.add("interrupted", totals.interrupted)
        line.add("deleted", outcome.deletion.removed.count)
        line.add("bytes_transferred", totals.transferred)
        line.add("bytes_reused", totals.reusedBytes)
        line.add("milliseconds", Int64((seconds * 1000).rounded()))
        line.add("steps_ms", object: PullSteps.Step.allCases.map { ($0.rawValue, Int64((outcome.steps[$0] * 1000).rounded())) })
        line.add("exit_code", Int64(exitCode))
        write(line.line)
    }
}

/// Hands every event to several reporters: people's on stderr and, with `--json`, machines' on stdout.
package struct PullReporters: PullEvents {
    package let human: HumanPullReporter
    package let json: JSONPullReporter?

    package init(human: HumanPullReporter, json: JSONPullReporter?) {
        self.human = human
        self.json = json
    }

    private var all: [any PullEvents] { [human] + (json.map { [$0] } ?? []) }

    package func planned(_ plan: SyncPlan) { all.forEach { $0.planned(plan) } }
    package func started(path: String, size: Int64, resumingAt offset: Int64, url: String) {
        all.forEach { $0.started(path: path, size: size, resumingAt: offset, url: url) }
    }
    package func retrying(path: String, reason: String, after delay: Double) {
        all.forEach { $0.retrying(path: path, reason: reason, after: delay) }
    }
    package func restarted(path: String, discarded: Int64, reason: String) {
        all.forEach { $0.restarted(path: path, discarded: discarded, reason: reason) }
    }
    package func finished(_ result: FileResult) { all.forEach { $0.finished(result) } }
    package func deleted(path: String) { all.forEach { $0.deleted(path: path) } }
    package func progress(_ snapshot: ProgressSnapshot) { all.forEach { $0.progress(snapshot) } }
    package func warned(_ text: String) { all.forEach { $0.warned(text) } }
    package func published(generation: String) { all.forEach { $0.published(generation: generation) } }
    package func refused(_ refusal: TrustRefusal, manifest: String) { all.forEach { $0.refused(refusal, manifest: manifest) } }

    package func summarize(_ outcome: PullOutcome, seconds: Double, exitCode: Int32) {
        human.summarize(outcome, seconds: seconds)
        json?.summarize(outcome, seconds: seconds, exitCode: exitCode)
    }
}
