package import AssetSync

/// The words of a pull's human output, shared by the plain and the live renderer. Reasons may
/// quote what a server sent: each goes through `QuotedValue.escapingControls` on its way out.
package enum PullLines {
    package static func retry(path: String, reason: String, after delay: Double) -> String {
        let wait = delay <= 0 ? "" : "; retrying in \(ElapsedTime.format(delay))"
        return "retry    \(QuotedValue.displayPath(path)): \(QuotedValue.escapingControls(reason))\(wait)\n"
    }

    package static func restart(path: String, discarded: Int64, reason: String) -> String {
        "restart  \(QuotedValue.displayPath(path)): \(QuotedValue.escapingControls(reason)); "
            + "\(ByteCount.human(discarded)) discarded, downloading from zero\n"
    }

    /// The line for a finished file, if it gets one; failures are flagged so `--quiet` keeps them.
    package static func finished(_ result: FileResult) -> (text: String, isFailure: Bool)? {
        switch result.outcome {
        case .committed:
            if let origin = result.reusedFrom {
                return ("reused   \(QuotedValue.displayPath(result.path)) (\(ByteCount.human(result.size))) from \(QuotedValue.displayPath(origin))\n", false)
            }
            let verb = result.action == .new ? "new     " : "updated "
            let mirror = result.isFromMirror ? result.source.map { " from mirror \(QuotedValue.escapingControls($0.url))" } ?? "" : ""
            let delta = result.reusedBytes > 0 ? ", \(ByteCount.human(result.reusedBytes)) kept from the old version" : ""
            return ("\(verb) \(QuotedValue.displayPath(result.path)) (\(ByteCount.human(result.size)))\(mirror)\(delta)\n", false)
        case .failed(let failure):
            return ("failed   \(QuotedValue.displayPath(result.path)): \(describe(failure, indent: "         "))\n", true)
        case .current, .interrupted:
            return nil
        }
    }

    package static func deleted(path: String) -> String { "deleted  \(QuotedValue.displayPath(path))\n" }

    /// A line for logs during long transfers.
    package static func progress(_ snapshot: ProgressSnapshot, rate: Double?) -> String {
        var line = "progress: \(snapshot.filesDone)/\(snapshot.filesTotal) files, "
        line += "\(ByteCount.human(snapshot.bytesDone)) of \(ByteCount.human(snapshot.bytesTotal))"
        if let rate, rate > 0 {
            line += ", \(ByteCount.human(Int64(rate)))/s, ETA \(ProgressLines.clock(Double(max(0, snapshot.bytesTotal - snapshot.bytesDone)) / rate))"
        }
        return line + "\n"
    }

    /// The closing lines: counts, bytes, time and rate, then each failure with its cause.
    /// With `quiet`, only what went wrong.
    package static func summary(_ outcome: PullOutcome, seconds: Double, quiet: Bool) -> String {
        let totals = PullTally(outcome)
        var line = "\(totals.new) new, \(totals.updated) updated, \(totals.current) current, \(totals.failures.count) failed"
        if totals.interrupted > 0 { line += ", \(totals.interrupted) interrupted" }
        if !outcome.deletion.removed.isEmpty { line += ", \(outcome.deletion.removed.count) deleted" }
        line += "; \(ByteCount.human(totals.transferred)) transferred"
        if totals.reusedBytes > 0 { line += ", \(ByteCount.human(totals.reusedBytes)) reused" }
        line += " in \(ElapsedTime.format(seconds))"
        if totals.transferred > 0, seconds > 0 { line += " (\(ByteCount.human(Int64(Double(totals.transferred) / seconds)))/s)" }
        let allWell = totals.failures.isEmpty && totals.interrupted == 0 && outcome.deletion.failures.isEmpty
        var text = quiet && allWell ? "" : line + ".\n"
        if outcome.interrupted {
            text += "Interrupted: partial downloads are kept in .assetsync/partial/ and resume on the next pull.\n"
        }
        if !totals.failures.isEmpty || !outcome.deletion.failures.isEmpty {
            text += "Failed:\n"
            for (path, failure) in totals.failures {
                text += "  \(QuotedValue.displayPath(path)): \(describe(failure, indent: "    "))\n"
            }
            for (path, error) in outcome.deletion.failures { text += "  \(QuotedValue.displayPath(path)): cannot delete: \(error.message)\n" }
        }
        if let refusal = refusedEverywhere(totals) { text += refusal }
        return text
    }

    /// When the server refused every file (401/403 from every URL), the likely cause rather than a file at a time.
    package static func refusedEverywhere(_ totals: PullTally) -> String? {
        let statuses = Set(totals.failures.map(\.failure.httpStatus))
        guard totals.new + totals.updated == 0, !statuses.isEmpty, statuses.isSubset(of: [401, 403]) else { return nil }
        let codes = statuses.compactMap { $0 }.sorted().map { "HTTP \($0)" }.joined(separator: " or ")
        return "The server refused access to every file (\(codes)): check that it may read the files it serves "
            + "(permissions, a private directory) and that the credentials it needs are given (--header, --netrc).\n"
    }

    /// The failure's message, its remedy and its URL; after more than one source, a line per source
    /// (what it answered, or why it was not asked), each after `indent`.
    package static func describe(_ failure: Failure, indent: String) -> String {
        guard !failure.sources.isEmpty else {
            return QuotedValue.escapingControls(failure.messageWithRemedy + (failure.url.map { " (\($0))" } ?? ""))
        }
        var text = "no source could serve it" + (failure.remedy?.words ?? "") + ":"
        for source in failure.sources {
            text += "\n\(indent)\(QuotedValue.escapingControls(source.url)): \(QuotedValue.escapingControls(source.reason))"
        }
        return text
    }
}
