import Testing
@testable import AssetSyncCLI
@testable import AssetSyncCache
@testable import AssetSyncManifestIO
@testable import AssetSyncModel
@testable import AssetSyncPull
@testable import AssetSyncSystem
@testable import AssetSyncTransfer

/// The closing lines of a pull.
@Suite struct PullSummaryTests {
    private func failed(_ path: String, status: Int?) -> FileResult {
        let reason = status.map { "HTTP \($0)" } ?? "connection refused"
        return FileResult(
            path: path, size: 10, action: .new,
            outcome: .failed(Failure(isLocal: false, reason: reason, httpStatus: status, url: "http://h/" + path)))
    }

    private func summary(_ results: [FileResult]) -> String {
        PullLines.summary(PullOutcome(results: results, interrupted: false, stoppedByLocalError: false), seconds: 1, quiet: false)
    }

    @Test("a server that refuses every file is named as the cause")
    func refusedEverywhereSaysSo() {
        let text = summary([failed("a.bin", status: 403), failed("b/c.bin", status: 403)])
        #expect(text.contains("Failed:\n  a.bin: HTTP 403 (http://h/a.bin)\n"))
        #expect(text.hasSuffix(
            "The server refused access to every file (HTTP 403): check that it may read the files it serves "
                + "(permissions, a private directory) and that the credentials it needs are given (--header, --netrc).\n"))
        #expect(summary([failed("a.bin", status: 401), failed("b.bin", status: 403)]).contains("(HTTP 401 or HTTP 403)"))
    }

    @Test("no refused-access hint when some file came through or failed otherwise")
    func noHintForMixedFailures() {
        let committed = FileResult(path: "ok.bin", size: 10, action: .new, outcome: .committed, transferred: 10)
        #expect(!summary([failed("a.bin", status: 403), committed]).contains("refused access"))
        #expect(!summary([failed("a.bin", status: 403), failed("b.bin", status: 404)]).contains("refused access"))
        #expect(!summary([failed("a.bin", status: 403), failed("b.bin", status: nil)]).contains("refused access"))
        #expect(!summary([committed]).contains("refused access"))
    }
}
