import Foundation
import Glibc
import Testing
import TestSupport

/// `pull --metrics-file`: a Prometheus textfile written however the pull ends, read back by a
/// strict reader of the exposition format (`PrometheusText`).
@Suite struct MetricsFileTests {
    private static func read(_ path: String) throws -> PrometheusText {
        try PrometheusText(String(contentsOfFile: path, encoding: .utf8))
    }

    @Test func aPullThenAFailureThenABadManifestEachLeaveTheirMetrics() throws {
        let files = ["a.bin": PullNginxTests.random(300_000), "b/c.bin": PullNginxTests.random(1234), "empty": Data()]
        let sandbox = try Sandbox(serving: files)
        let nginx = try NginxServer(root: sandbox.served)
        defer { nginx.stop() }
        let manifest = try sandbox.manifest(base: nginx.baseURL)
        let metricsDirectory = try TemporaryDirectory()
        let metricsPath = metricsDirectory.path + "/assetsync.prom"
        let before = Date().timeIntervalSince1970

        let first = try AssetSyncBinary.run(["pull", manifest, "--dest", sandbox.dest, "--metrics-file", metricsPath])
        #expect(first.status == 0, "\(first.stderr)")
        let after = Date().timeIntervalSince1970
        let ok = try Self.read(metricsPath)
        let dest = ["dest": sandbox.dest]
        #expect(ok.samples.allSatisfy { $0.labels["dest"] == sandbox.dest })
        #expect(ok.types.values.allSatisfy { $0 == "gauge" } && ok.helps.keys.sorted() == ok.types.keys.sorted())
        let start = try #require(ok.value("assetsync_last_run_start_time_seconds", dest))
        let end = try #require(ok.value("assetsync_last_run_end_time_seconds", dest))
        #expect(before - 0.001 <= start && start <= end && end <= after + 0.001)
        #expect(abs(ok.value("assetsync_last_run_duration_seconds", dest)! - (end - start)) < 0.002)
        #expect(ok.value("assetsync_last_run_success", dest) == 1)
        #expect(ok.value("assetsync_last_run_exit_code", dest) == 0)
        #expect(ok.value("assetsync_last_run_files", ["outcome": "new"]) == 3)
        #expect(ok.value("assetsync_last_run_files", ["outcome": "failed"]) == 0)
        #expect(ok.value("assetsync_last_run_bytes", ["outcome": "new"]) == 301_234)
        #expect(ok.value("assetsync_last_run_transferred_bytes") == 301_234)
        #expect(ok.value("assetsync_last_run_reused_files") == 0 && ok.value("assetsync_last_run_reused_bytes") == 0)
        #expect(ok.value("assetsync_last_success_time_seconds") == end)
        // Replaced by rename: nothing else is left in the directory.
        #expect(try FileManager.default.contentsOfDirectory(atPath: metricsDirectory.path) == ["assetsync.prom"])

        // A file gone from the server: exit 1, and the last success carried from the run before.
        try FileManager.default.removeItem(at: sandbox.served.appendingPathComponent("b/c.bin"))
        try Data("x".utf8).write(to: URL(fileURLWithPath: sandbox.dest + "/b/c.bin"))
        let second = try AssetSyncBinary.run(["pull", manifest, "--dest", sandbox.dest, "--metrics-file", metricsPath])
        #expect(second.status == 1, "\(second.stderr)")
        let failed = try Self.read(metricsPath)
        #expect(failed.value("assetsync_last_run_success") == 0)
        #expect(failed.value("assetsync_last_run_exit_code") == 1)
        #expect(failed.value("assetsync_last_run_files", ["outcome": "failed"]) == 1)
        #expect(failed.value("assetsync_last_run_files", ["outcome": "current"]) == 2)
        #expect(failed.value("assetsync_last_run_bytes", ["outcome": "failed"]) == 1234)
        #expect(failed.value("assetsync_last_success_time_seconds") == end)

        // A run that never reaches its files still says how it ended.
        let bad = try sandbox.root.write("bad.xml", "<manifest version=\"1\"><file/></manifest>")
        let third = try AssetSyncBinary.run(["pull", bad, "--dest", sandbox.dest, "--metrics-file", metricsPath])
        #expect(third.status == 2)
        let refused = try Self.read(metricsPath)
        #expect(refused.value("assetsync_last_run_exit_code") == 2)
        #expect(refused.value("assetsync_last_run_files", ["outcome": "new"]) == nil)
        #expect(refused.value("assetsync_last_success_time_seconds") == end)
    }

    /// With the primary down, the mirror serves every file: each source's files and failures are
    /// counted under its base, and when it last served and last failed is carried by the next run.
    @Test func theSourcesThatServedFilesAreCountedAndRemembered() throws {
        let mirror = try FaultServer()
        defer { mirror.stop() }
        let down = "http://127.0.0.1:\(try PullMirrorTests.closedPort())/"
        let paths = ["a.bin", "b.bin"]
        let sandbox = try PullMirrorTests.sandbox(paths, base: down, mirrors: [mirror.baseURL])
        for (index, path) in paths.enumerated() { mirror.route(path, .serve(PullMirrorTests.resource(UInt64(index + 1)))) }
        let metricsPath = sandbox.root.path + "/assetsync.prom"

        let first = try sandbox.pull(["--jobs", "1", "--retries", "0", "--metrics-file", metricsPath])
        #expect(first.status == 0, "\(first.stderr)")
        let served = try Self.read(metricsPath)
        let end = try #require(served.value("assetsync_last_run_end_time_seconds"))
        #expect(served.value("assetsync_last_run_source_files", ["source": mirror.baseURL]) == 2)
        #expect(served.value("assetsync_last_run_source_bytes", ["source": mirror.baseURL])
            == Double(paths.indices.map { PullMirrorTests.resource(UInt64($0 + 1)).allBytes.count }.reduce(0, +)))
        #expect(served.value("assetsync_last_run_source_files", ["source": down]) == nil)
        #expect(served.value("assetsync_source_last_success_time_seconds", ["source": mirror.baseURL]) == end)
        #expect(served.value("assetsync_source_last_success_time_seconds", ["source": down]) == nil)
        // The primary failed the first file; marked bad, it was not asked for the second.
        #expect(served.value("assetsync_last_run_source_failures", ["source": down]) == 1)
        #expect(served.value("assetsync_source_last_failure_time_seconds", ["source": down]) == end)
        #expect(served.value("assetsync_last_run_source_failures", ["source": mirror.baseURL]) == nil)

        let second = try sandbox.pull(["--metrics-file", metricsPath])
        #expect(second.status == 0, "\(second.stderr)")
        let idle = try Self.read(metricsPath)
        #expect(idle.value("assetsync_last_run_source_files", ["source": mirror.baseURL]) == nil)
        #expect(idle.value("assetsync_source_last_success_time_seconds", ["source": mirror.baseURL]) == end)
        #expect(idle.value("assetsync_source_last_failure_time_seconds", ["source": down]) == end)
        #expect(idle.value("assetsync_last_success_time_seconds")! > end)
    }

    @Test func aMetricsFileThatCannotBeWrittenFailsAnOtherwiseGoodPull() throws {
        let sandbox = try Sandbox(serving: ["a.bin": PullNginxTests.random(1000)])
        let nginx = try NginxServer(root: sandbox.served)
        defer { nginx.stop() }
        let missing = sandbox.root.path + "/no-such-directory/assetsync.prom"
        let result = try AssetSyncBinary.run(["pull", try sandbox.manifest(base: nginx.baseURL), "--dest", sandbox.dest, "--metrics-file", missing])
        #expect(result.status == 3)
        #expect(result.stderr.contains("Error: cannot write the metrics file \(missing): "), "\(result.stderr)")
        #expect(try sandbox.cached() == sandbox.expected)
    }

    @Test func theReaderRefusesMalformedText() {
        let bad = [
            "m 1",  // no newline at the end
            "m{a=\"x\"} 1\nm{a=\"x\"} 2\n",
            "m 1\nn 1\nm 2\n",
            "m{a=\"\\x\"} 1\n",
            "m one\n",
            "m 1\n# TYPE m gauge\n",
            "1m 1\n",
            "m{a=x} 1\n",
            "\n",
        ]
        for text in bad {
            #expect(throws: PrometheusText.Failure.self, "\(text)") { try PrometheusText(text) }
        }
        #expect(throws: Never.self) { try PrometheusText("# HELP m h\n# TYPE m gauge\nm{a=\"\\\"q\\\\\\n\"} 1.5e3\nm +Inf\n") }
    }
}
