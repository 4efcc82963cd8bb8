import AssetSync

/// What one pull tells a monitoring system, in Prometheus's text exposition format (for
/// node_exporter's textfile collector): when it ran, how it ended, the files and bytes by outcome,
/// and what each source served and failed. Some gauges outlive the run, carried from the file the
/// previous run wrote: when a run last succeeded, and when each source last served and last failed a file.
struct PullMetrics {
    /// The cache directory, the `dest` label of every sample.
    var dest: String
    /// Unix time, seconds.
    var start: Double
    var end: Double
    var exitCode: Int32
    /// The pull's results; nil when it never reached its files.
    var tally: PullTally?
    /// Carried over: Unix time of the last run that exited 0.
    var lastSuccess: Double?
    /// Carried over: Unix time each source last served a verified file.
    var sourceLastSuccess: [String: Double] = [:]
    /// Carried over: Unix time each source last failed a file.
    var sourceLastFailure: [String: Double] = [:]

    /// Adds a finished pull's results.
    mutating func count(_ outcome: PullOutcome) { tally = PullTally(outcome) }

    /// Sets the end, and moves the carried gauges forward for what this run achieved.
    mutating func finish(at time: Double, exitCode: Int32) {
        end = time
        self.exitCode = exitCode
        if exitCode == 0 { lastSuccess = time }
        for source in (tally?.sourceFiles ?? [:]).keys { sourceLastSuccess[source] = time }
        for source in (tally?.sourceFailures ?? [:]).keys { sourceLastFailure[source] = time }
    }

    /// The exposition text: each metric's HELP and TYPE, then its samples, labels escaped.
    var text: String {
        var text = ""
        func metric(_ name: String, _ help: String, _ samples: [(labels: [(String, String)], value: String)]) {
            guard !samples.isEmpty else { return }
            text += "# HELP \(name) \(help)\n# TYPE \(name) gauge\n"
            for sample in samples {
                let labels = ([("dest", dest)] + sample.labels).map { "\($0.0)=\"\(Self.escape($0.1))\"" }.joined(separator: ",")
                text += "\(name){\(labels)} \(sample.value)\n"
            }
        }
        metric("assetsync_last_run_start_time_seconds", "When the last pull started (Unix time).", [([], Self.number(start))])
        metric("assetsync_last_run_end_time_seconds", "When the last pull ended (Unix time).", [([], Self.number(end))])
        metric("assetsync_last_run_duration_seconds", "How long the last pull took.", [([], Self.number(max(0, end - start)))])
        metric("assetsync_last_run_success", "1 when the last pull exited 0 (the cache matches the manifest), else 0.",
            [([], exitCode == 0 ? "1" : "0")])
        metric("assetsync_last_run_exit_code", "The last pull's exit status (see assetsync pull --help).", [([], "\(exitCode)")])
        metric("assetsync_last_run_files", "Files of the manifest by what the last pull did with them.",
            PullTally.Kind.allCases.compactMap { kind in tally?.files[kind].map { ([("outcome", kind.rawValue)], "\($0)") } })
        metric("assetsync_last_run_bytes", "Bytes of those files (their manifest sizes) by outcome.",
            PullTally.Kind.allCases.compactMap { kind in tally?.bytes[kind].map { ([("outcome", kind.rawValue)], "\($0)") } })
        metric("assetsync_last_run_transferred_bytes", "Body bytes the last pull received, discarded ones included.",
            [([], "\(tally?.transferred ?? 0)")])
        metric("assetsync_last_run_reused_files", "Files the last pull copied from bytes already on the machine instead of downloading.",
            [([], "\(tally?.reusedFiles ?? 0)")])
        metric(
            "assetsync_last_run_reused_bytes", "Bytes of those files, and of the chunks deltas kept from old versions.",
            [([], "\(tally?.reusedBytes ?? 0)")])
        metric("assetsync_last_run_deleted_files", "Files --delete removed in the last pull.", [([], "\(tally?.deleted ?? 0)")])
        metric("assetsync_last_run_source_files", "Verified files each source (base, mirror base or host) served in the last pull.",
            (tally?.sourceFiles ?? [:]).sorted { $0.key < $1.key }.map { ([("source", $0.key)], "\($0.value)") })
        metric("assetsync_last_run_source_bytes", "Bytes of the verified files each source served in the last pull.",
            (tally?.sourceBytes ?? [:]).sorted { $0.key < $1.key }.map { ([("source", $0.key)], "\($0.value)") })
        metric("assetsync_last_run_source_failures", "Files each source was asked for and failed in the last pull.",
            (tally?.sourceFailures ?? [:]).sorted { $0.key < $1.key }.map { ([("source", $0.key)], "\($0.value)") })
        metric("assetsync_last_success_time_seconds", "When a pull into this cache directory last exited 0 (Unix time).",
            lastSuccess.map { [([], Self.number($0))] } ?? [])
        metric("assetsync_source_last_success_time_seconds", "When each source last served a verified file (Unix time).",
            sourceLastSuccess.sorted { $0.key < $1.key }.map { ([("source", $0.key)], Self.number($0.value)) })
        metric("assetsync_source_last_failure_time_seconds", "When each source last failed a file (Unix time).",
            sourceLastFailure.sorted { $0.key < $1.key }.map { ([("source", $0.key)], Self.number($0.value)) })
        return text
    }

    /// The carried gauges of a file an earlier run wrote (for the same `dest`); anything else in it is ignored.
    mutating func carry(from previous: String) {
        for line in previous.split(separator: "\n") where !line.hasPrefix("#") {
            guard let sample = Self.parse(line), sample.labels["dest"] == dest, sample.value.isFinite else { continue }
            switch sample.name {
            case "assetsync_last_success_time_seconds": lastSuccess = sample.value
            case "assetsync_source_last_success_time_seconds":
                if let source = sample.labels["source"] { sourceLastSuccess[source] = sample.value }
            case "assetsync_source_last_failure_time_seconds":
                if let source = sample.labels["source"] { sourceLastFailure[source] = sample.value }
            default: break
            }
        }
    }

    /// A sample line written by `text`: `name{label="value",…} number`; nil for anything else.
    private static func parse(_ line: Substring) -> (name: String, labels: [String: String], value: Double)? {
        guard let open = line.firstIndex(of: "{"), let close = line.lastIndex(of: "}"), open < close,
              let value = Double(line[line.index(after: close)...].trimmingPrefix(" "))
        else { return nil }
        var labels: [String: String] = [:]
        var rest = line[line.index(after: open)..<close]
        while let equals = rest.firstIndex(of: "=") {
            let key = String(rest[..<equals])
            rest = rest[rest.index(after: equals)...]
            guard rest.first == "\"" else { return nil }
            rest = rest.dropFirst()
            var text = ""
            var escaped = false
            var ended = false
            while let character = rest.first {
                rest = rest.dropFirst()
                if escaped {
                    text.append(character == "n" ? "\n" : character)
                    escaped = false
                } else if character == "\\" {
                    escaped = true
                } else if character == "\"" {
                    ended = true
                    break
                } else {
                    text.append(character)
                }
            }
            guard ended else { return nil }
            labels[key] = text
            if rest.first == "," { rest = rest.dropFirst() }
        }
        return (String(line[..<open]), labels, value)
    }

    /// A label value as the exposition format writes it: backslash, double quote and newline escaped.
    static func escape(_ value: String) -> String {
        var escaped = ""
        for character in value {
            switch character {
            case "\\": escaped += "\\\\"
            case "\"": escaped += "\\\""
            case "\n": escaped += "\\n"
            default: escaped.append(character)
            }
        }
        return escaped
    }

    /// Seconds to the millisecond, as the format reads them.
    private static func number(_ value: Double) -> String {
        let milliseconds = (value * 1000).rounded()
        guard milliseconds.magnitude < 1e17 else { return String(value) }
        let whole = Int64(milliseconds)
        let fraction = whole.magnitude % 1000
        let sign = whole < 0 ? "-" : ""
        return fraction == 0 ? "\(whole / 1000)" : "\(sign)\(whole.magnitude / 1000)." + String(String(fraction + 1000).dropFirst())
    }
}
