import AssetSync
import Synchronization

/// Pull output for logs and for now also terminals: a line per fetched or
/// failed file on stderr, then a summary. `--quiet` keeps only failures.
final class PlainPullReporter: PullReporter {
    private let console: Console
    private let quiet: Bool
    private let lock = Mutex(())

    init(console: Console, quiet: Bool) {
        self.console = console
        self.quiet = quiet
    }

    func started(path: String, size: Int64, resumingAt offset: Int64, url: String) {}

    func retrying(path: String, reason: String, after delay: Double) {
        guard !quiet else { return }
        let wait = delay < 0.05 ? "now" : "in \(ElapsedTime.format(delay))"
        say("retry    \(QuotedValue.displayPath(path)): \(reason); retrying \(wait)\n")
    }

    func finished(_ result: FileResult) {
        switch result.outcome {
        case .committed:
            if !quiet { say("\(result.action == .new ? "new    " : "updated") \(QuotedValue.displayPath(result.path)) (\(ByteCount.human(result.size)))\n") }
        case .failed(let failure):
            say("failed   \(QuotedValue.displayPath(result.path)): \(Self.describe(failure))\n")
        case .current, .interrupted:
            break
        }
    }

    func deleted(path: String) {
        if !quiet { say("deleted  \(QuotedValue.displayPath(path))\n") }
    }

    /// The closing lines: counts, bytes, time and rate, then each failure with its cause.
    func summarize(_ outcome: PullSession.Outcome, seconds: Double) {
        var counts: [String: Int] = [:]
        var transferred: Int64 = 0
        var failures: [(String, Failure)] = []
        var interrupted = 0
        for result in outcome.results {
            switch result.outcome {
            case .committed(let bytes):
                counts[result.action == .new ? "new" : "updated", default: 0] += 1
                transferred += bytes
            case .current: counts["current", default: 0] += 1
            case .failed(let failure): failures.append((result.path, failure))
            case .interrupted: interrupted += 1
            }
        }
        let rate = seconds > 0 ? Double(transferred) / seconds : 0
        var line = "\(counts["new"] ?? 0) new, \(counts["updated"] ?? 0) updated, \(counts["current"] ?? 0) current"
        line += ", \(failures.count) failed"
        if interrupted > 0 { line += ", \(interrupted) interrupted" }
        if !outcome.deletion.removed.isEmpty { line += ", \(outcome.deletion.removed.count) deleted" }
        line += "; \(ByteCount.human(transferred)) transferred in \(ElapsedTime.format(seconds))"
        if transferred > 0 { line += " (\(ByteCount.human(Int64(rate)))/s)" }
        let quietOK = failures.isEmpty && interrupted == 0 && outcome.deletion.failures.isEmpty
        var text = quiet && quietOK ? "" : line + ".\n"
        if outcome.interrupted {
            text += "Interrupted: partial downloads are kept in .assetsync/partial/ and resume on the next pull.\n"
        }
        if !failures.isEmpty || !outcome.deletion.failures.isEmpty {
            text += "Failed:\n"
            for (path, failure) in failures { text += "  \(QuotedValue.displayPath(path)): \(Self.describe(failure))\n" }
            for (path, error) in outcome.deletion.failures { text += "  \(QuotedValue.displayPath(path)): cannot delete: \(error)\n" }
        }
        say(text)
    }

    private static func describe(_ failure: Failure) -> String {
        var text = failure.reason
        if let url = failure.url { text += " (\(url))" }
        return text
    }

    private func say(_ text: String) {
        guard !text.isEmpty else { return }
        lock.withLock { _ in console.err(text) }
    }
}
