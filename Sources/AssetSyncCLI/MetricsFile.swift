import AssetSync

/// `pull --metrics-file PATH`: the run's `PullMetrics`, written when the pull ends however it ends
/// (a usage error after the options were read, a bad manifest, a held lock, a failure, Ctrl-C),
/// replacing PATH atomically (a temporary beside it, then rename), so that a collector never
/// reads half a file. The temporary's name does not end in `.prom`: node_exporter skips it.
final class MetricsFile {
    let path: String
    private(set) var metrics: PullMetrics

    /// The largest earlier file read for the carried gauges.
    private static let previousSizeLimit = 1 << 20

    init(path: String, dest: String, start: Double) {
        self.path = path
        metrics = PullMetrics(dest: AssetSync.absolute(dest), start: start, end: start, exitCode: 0)
        if let previous = AssetSync.smallFile(at: path, limit: Self.previousSizeLimit) { metrics.carry(from: previous) }
    }

    func count(_ outcome: PullOutcome) { metrics.count(outcome) }

    /// Writes the metrics for a run that ends with `status`; the status to exit with, which is a
    /// local I/O failure (3) when the file cannot be written after an otherwise successful pull.
    func write(ending status: ExitStatus, console: Console) -> ExitStatus {
        metrics.finish(at: Self.now(), exitCode: status.rawValue)
        guard let reason = AssetSync.replaceFile(at: path, with: metrics.text) else { return status }
        console.err("Error: cannot write the metrics file \(path): \(reason). Check that its directory exists and is writable.\n")
        return status == .success ? .localIOFailure : status
    }

    /// Unix time in seconds.
    static func now() -> Double { AssetSync.preciseWallClock() }
}
