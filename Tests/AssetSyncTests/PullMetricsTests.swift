import Testing
@testable import AssetSyncCLI
import AssetSyncModel

/// The metrics a pull leaves for a monitoring system, in process: its results tallied by outcome and
/// by source, the exposition text, and the gauges carried from the file the run before wrote.
@Suite struct PullMetricsTests {
    static let primary = "http://cdn.example:80"
    static let mirror = "http://mirror.example:80"

    static var outcome: PullOutcome {
        let served = DownloadSource(url: "http://cdn.example/a.bin")
        let fromMirror = DownloadSource(url: "http://mirror.example/b.bin")
        return PullOutcome(
            results: [
                FileResult(path: "a.bin", size: 10, action: .new, outcome: .committed, transferred: 10, source: served),
                FileResult(
                    path: "b.bin", size: 20, action: .changed, outcome: .committed, transferred: 25, source: fromMirror, isFromMirror: true,
                    failedSources: [Self.primary]),
                FileResult(path: "c.bin", size: 30, action: .check, outcome: .current),
                FileResult(path: "d.bin", size: 40, action: .new, outcome: .committed, reusedFrom: "/other/d.bin"),
                FileResult(
                    path: "e.bin", size: 50, action: .new, outcome: .failed(Failure(isLocal: false, reason: "HTTP 404")),
                    failedSources: [Self.primary, Self.mirror]),
            ],
            deletion: PullOutcome.Deletion(removed: ["old.bin"]), interrupted: false, stoppedByLocalError: false)
    }

    /// The value of the sample of `name` whose labels include `labels`, in `text`.
    static func sample(_ name: String, _ labels: String = "", in text: String) -> String? {
        text.split(separator: "\n").first { $0.hasPrefix(name + "{") && $0.contains(labels) }.map { String($0.split(separator: " ").last!) }
    }

    @Test("a pull's files are tallied by outcome, its bytes by source, and a failed source counts once per file it failed")
    func resultsAreTalliedByOutcomeAndSource() {
        var metrics = PullMetrics(dest: "/var/cache/game", start: 1000, end: 1000, exitCode: 0)
        metrics.count(Self.outcome)
        metrics.finish(at: 1002.5, exitCode: 1)
        let text = metrics.text
        #expect(Self.sample("assetsync_last_run_files", "outcome=\"new\"", in: text) == "2")
        #expect(Self.sample("assetsync_last_run_files", "outcome=\"updated\"", in: text) == "1")
        #expect(Self.sample("assetsync_last_run_files", "outcome=\"current\"", in: text) == "1")
        #expect(Self.sample("assetsync_last_run_files", "outcome=\"failed\"", in: text) == "1")
        #expect(Self.sample("assetsync_last_run_bytes", "outcome=\"failed\"", in: text) == "50")
        #expect(Self.sample("assetsync_last_run_transferred_bytes", in: text) == "35")
        #expect(Self.sample("assetsync_last_run_reused_files", in: text) == "1")
        #expect(Self.sample("assetsync_last_run_deleted_files", in: text) == "1")
        #expect(Self.sample("assetsync_last_run_source_bytes", "source=\"\(Self.mirror)\"", in: text) == "20")
        #expect(Self.sample("assetsync_last_run_source_failures", "source=\"\(Self.primary)\"", in: text) == "2")
        #expect(Self.sample("assetsync_last_run_duration_seconds", in: text) == "2.500")
        #expect(Self.sample("assetsync_last_run_success", in: text) == "0")
        // Exit 1: no success to record, so no last-success gauge at all.
        #expect(Self.sample("assetsync_last_success_time_seconds", in: text) == nil)
    }

    @Test("the last success and each source's last success and failure carry over from the file before, for the same dest only")
    func carriedGaugesOutliveTheRun() {
        var first = PullMetrics(dest: "/var/cache/game", start: 1000, end: 1000, exitCode: 0)
        first.count(Self.outcome)
        first.finish(at: 1001, exitCode: 0)
        var next = PullMetrics(dest: "/var/cache/game", start: 2000, end: 2000, exitCode: 0)
        next.carry(from: first.text)
        next.count(PullOutcome(results: [], interrupted: true, stoppedByLocalError: false))
        next.finish(at: 2001, exitCode: 130)
        let text = next.text
        #expect(Self.sample("assetsync_last_success_time_seconds", in: text) == "1001")
        #expect(Self.sample("assetsync_source_last_success_time_seconds", "source=\"\(Self.primary)\"", in: text) == "1001")
        #expect(Self.sample("assetsync_source_last_failure_time_seconds", "source=\"\(Self.mirror)\"", in: text) == "1001")
        var elsewhere = PullMetrics(dest: "/srv/other", start: 2000, end: 2000, exitCode: 0)
        elsewhere.carry(from: first.text)
        elsewhere.finish(at: 2001, exitCode: 1)
        #expect(Self.sample("assetsync_last_success_time_seconds", in: elsewhere.text) == nil)
    }

    @Test("a label value with a quote, a backslash or a newline is escaped, and read back the same")
    func labelsAreEscapedAndReadBack() {
        let dest = "/tmp/odd \"name\"\\\nhere"
        var first = PullMetrics(dest: dest, start: 0, end: 0, exitCode: 0)
        first.finish(at: 5, exitCode: 0)
        #expect(first.text.contains("dest=\"/tmp/odd \\\"name\\\"\\\\\\nhere\""))
        var next = PullMetrics(dest: dest, start: 10, end: 10, exitCode: 0)
        next.carry(from: first.text)
        #expect(next.lastSuccess == 5)
    }
}
