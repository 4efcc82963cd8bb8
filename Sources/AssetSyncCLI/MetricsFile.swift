import AssetSyncPull
import AssetSyncSystem
import Glibc

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
        metrics = PullMetrics(dest: Self.absolute(dest), start: start, end: start, exitCode: 0)
        if let previous = Self.read(path) { metrics.carry(from: previous) }
    }

    func count(_ outcome: PullSession.Outcome) { metrics.count(outcome) }

    /// Writes the metrics for a run that ends with `status`; the status to exit with, which is a
    /// local I/O failure (3) when the file cannot be written after an otherwise successful pull.
    func write(ending status: ExitStatus, console: Console) -> ExitStatus {
        metrics.finish(at: Self.now(), exitCode: status.rawValue)
        do {
            try AtomicFile.write(metrics.text, to: path)
            return status
        } catch {
            console.err("Error: cannot write the metrics file \(path): \(error.reason). Check that its directory exists and is writable.\n")
            return status == .success ? .localIOFailure : status
        }
    }

    /// Unix time in seconds.
    static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    /// `dest` made absolute against the working directory, as a label that names one directory.
    private static func absolute(_ dest: String) -> String {
        guard !dest.hasPrefix("/"), let cwd = getcwd(nil, 0) else { return dest }
        defer { free(cwd) }
        let base = String(cString: cwd)
        return dest == "." ? base : (base == "/" ? "" : base) + "/" + dest
    }

    /// The earlier file's text: a regular file of bounded size, read without following a link; else nil.
    private static func read(_ path: String) -> String? {
        let directory = open(PathName.directory(of: path), O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard directory >= 0 else { return nil }
        defer { close(directory) }
        let name = String(PathName.split(path).name)
        guard let bytes = (try? AtomicFile.read(name, in: directory, limit: previousSizeLimit, display: path)) ?? nil else { return nil }
        return String(validating: bytes, as: UTF8.self)
    }
}
