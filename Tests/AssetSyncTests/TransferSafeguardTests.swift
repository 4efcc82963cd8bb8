import Testing
@testable import AssetSyncCLI
@testable import AssetSyncCache
@testable import AssetSyncManifestIO
@testable import AssetSyncModel
@testable import AssetSyncPull
@testable import AssetSyncSystem
@testable import AssetSyncTransfer

/// What guards a transfer against a hostile or slow server, decided without a network: server text
/// escaped on the terminal, validators that are valid header values, where credentials go, the
/// minimum speed, and `--limit-rate` shared by the transfers running.
@Suite struct TransferSafeguardTests {
    // MARK: - Server text is escaped

    @Test("the human lines escape control characters in any reason they print")
    func humanLinesEscapeControlCharacters() {
        let failure = Failure(isLocal: false, reason: "bad \u{1B}[2J range", url: "http://h/\u{9B}x")
        let line = PullLines.finished(FileResult(path: "a", size: 1, action: .new, outcome: .failed(failure)))?.text ?? ""
        #expect(line == "failed   a: bad \\u{1b}[2J range (http://h/\\u{9b}x)\n")
        let retry = PullLines.retry(path: "a", reason: "x\u{7}\r\ny", after: 0)
        #expect(retry == "retry    a: x\\u{7}\\u{d}\\u{a}y\n")
        #expect(QuotedValue.serverValue("bytes 1-2/3") == "bytes 1-2/3")
        #expect(QuotedValue.serverValue("bytes \u{1B}[2J") == "\"bytes \\u{1b}[2J\"")
    }

    // MARK: - Validators

    @Test("only valid header values are kept as validators")
    func validatorsMustBeHeaderValues() {
        var head = ResponseHead()
        head.take("HTTP/1.1 200 OK\r\n")
        head.take("ETag: \"abc\rdef\"\r\n")
        head.take("Last-Modified: Mon, 01 Jan 2024 00:00:00 GMT\r\n")
        #expect(head.etag == nil)
        #expect(head.lastModified == "Mon, 01 Jan 2024 00:00:00 GMT")
        head.take("ETag: \"caf\u{E9}\"\r\n")
        #expect(head.etag == nil)
        head.take("ETag: \"" + String(repeating: "a", count: 600) + "\"\r\n")
        #expect(head.etag == nil)
        head.take("ETag: W/\"a b\tc\"\r\n")
        #expect(head.etag == "W/\"a b\tc\"")
    }

    // MARK: - Where credentials go

    @Test("the credential scope admits the manifest's origin and the --auth-host names only")
    func credentialScope() {
        var scope = CredentialScope()
        #expect(!scope.admits("https://cdn.example.com/a"))
        scope.admit(originOf: "https://cdn.example.com/game/manifest.xml")
        #expect(scope.admits("https://CDN.example.com:443/b"))
        #expect(!scope.admits("http://cdn.example.com/b"))  // another scheme is another origin
        #expect(!scope.admits("https://cdn.example.com:8443/b"))
        #expect(!scope.admits("https://evil.example.com/b"))
        #expect(admit(&scope, "Mirror.example.com"))
        #expect(scope.admits("http://mirror.example.com:8080/x"))
        #expect(admit(&scope, "127.0.0.1:8080"))
        #expect(scope.admits("http://127.0.0.1:8080/x") && !scope.admits("http://127.0.0.1:8081/x"))
        #expect(admit(&scope, "[::1]:80"))
        #expect(scope.admits("http://[::1]/x"))
        for bad in ["", "a/b", "user@host", "::1", "host:0", "host:99999", "host:x", "a b"] {
            #expect(!admit(&scope, bad), "\(bad)")
        }
    }

    private func admit(_ scope: inout CredentialScope, _ host: String) -> Bool { scope.admit(host: host) }

    // MARK: - A minimum speed

    @Test("a window below the minimum speed is a stall; silence still is one")
    func liveness() {
        var slow = Liveness(silence: 30, minimumRate: 100, window: 10, now: 0)
        for second in 1...9 {
            slow.heard(50, at: Double(second))
            let verdict = slow.check(at: Double(second))
            #expect(verdict == nil)
        }
        slow.heard(50, at: 10)
        let last = slow.check(at: 10)
        #expect(last == .slow(bytes: 500, seconds: 10))

        var healthy = Liveness(silence: 30, minimumRate: 100, window: 10, now: 0)
        for second in 1...30 {
            healthy.heard(150, at: Double(second))
            let verdict = healthy.check(at: Double(second))
            #expect(verdict == nil)
        }
        var silent = Liveness(silence: 5, minimumRate: 0, window: 10, now: 0)
        let atFive = silent.check(at: 5)
        let later = silent.check(at: 5.5)
        #expect(atFive == nil && later == .silent)
    }

    // MARK: - --limit-rate as a total

    @Test("--limit-rate is shared by the transfers running at each moment")
    func rateShares() {
        #expect(TransferEngine.rateShare(of: 800_000, among: 4) == 200_000)
        #expect(TransferEngine.rateShare(of: 800_000, among: 3) == 266_666)
        #expect(TransferEngine.rateShare(of: 800_000, among: 1) == 800_000)
        #expect(TransferEngine.rateShare(of: 800_000, among: 0) == 800_000)
        #expect(TransferEngine.rateShare(of: 3, among: 8) == 1)
    }
}
