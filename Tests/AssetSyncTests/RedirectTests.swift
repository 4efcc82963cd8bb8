import Testing
@testable import AssetSyncModel
@testable import AssetSyncTransfer

/// The hops a request may follow (`RequestRoute` under `RedirectRule`), for assets and manifests
/// alike: a refused hop leaves the route where it was.
@Suite struct RedirectTests {
    private func route(_ url: String, admitting origins: [String] = []) -> RequestRoute {
        var options = TransferOptions()
        for origin in origins { options.credentialScope.admit(originOf: origin) }
        return RequestRoute(url, options: options)
    }

    @Test("http to https is followed, and so is https to https on another path")
    func upgradeIsFollowed() {
        var route = route("http://a.example/x")
        #expect(route.follow("https://a.example/y") == nil)
        #expect(route.follow("https://a.example/z?v=1") == nil)
        #expect(route.url == "https://a.example/z?v=1" && route.hops == 2)
    }

    @Test("https to http is refused")
    func downgradeIsRefused() {
        var route = route("https://a.example/x")
        #expect(route.follow("http://a.example/x")?.reason == "refused a redirect from https to http (\"http://a.example/x\")")
        #expect(route.follow("HTTP://a.example/x") != nil)
        #expect(route.url == "https://a.example/x" && route.hops == 0)
    }

    @Test("schemes other than http and https are refused, and so is a redirect without Location",
          arguments: ["ftp://a.example/x", "file:///etc/passwd", "javascript:alert(1)", "gopher://a.example/", "/relative"])
    func otherSchemesAreRefused(location: String) throws {
        var route = route("http://a.example/x")
        let refusal = route.follow(location)
        let reason = try #require(refusal?.reason)
        #expect(reason.hasSuffix(": only http and https are allowed"))
        #expect(route.url == "http://a.example/x")
    }

    @Test("a redirect without a usable Location is refused")
    func missingLocation() {
        var route = route("http://a.example/x")
        #expect(route.follow(nil)?.reason == "a redirect without a usable Location")
    }

    @Test("ten hops are followed, the eleventh is refused")
    func hopLimit() {
        var route = route("http://a.example/0")
        for hop in 1...10 { #expect(route.follow("http://a.example/\(hop)") == nil, "hop \(hop)") }
        #expect(route.follow("http://a.example/11")?.reason == "more than 10 redirects")
        #expect(route.url == "http://a.example/10")
    }

    @Test("credentials follow within their origin and are dropped for good once a hop leaves it")
    func credentialsStayWithTheirOrigin() {
        var route = route("https://a.example/x", admitting: ["https://a.example/", "https://b.example/"])
        #expect(route.sendsCredentials)
        #expect(route.follow("https://A.example:443/y") == nil && route.sendsCredentials)  // the same origin spelled otherwise
        #expect(route.follow("https://b.example/y") == nil && !route.sendsCredentials)  // admitted, but another origin
        #expect(route.follow("https://a.example/z") == nil && !route.sendsCredentials)  // never back
        var port = self.route("http://a.example/x", admitting: ["http://a.example/"])
        #expect(port.follow("http://a.example:8080/x") == nil && !port.sendsCredentials)
        var upgrade = self.route("http://a.example/x", admitting: ["http://a.example/"])
        #expect(upgrade.follow("https://a.example/x") == nil && !upgrade.sendsCredentials)  // another scheme is another origin
    }

    @Test("a route is at its first origin, where a signature may go, until a hop leaves it, and never again after")
    func signingStopsOnceARedirectLeavesTheOrigin() {
        var route = route("http://127.0.0.1:9000/assets/a.bin")
        #expect(route.atFirstOrigin)
        #expect(route.follow("http://127.0.0.1:9000/assets/b.bin") == nil && route.atFirstOrigin)
        #expect(route.follow("http://127.0.0.1:9001/assets/b.bin") == nil && !route.atFirstOrigin)
        #expect(route.follow("http://127.0.0.1:9000/assets/a.bin") == nil && !route.atFirstOrigin)
    }

    @Test("a URL outside the credential scope never carries them, redirected or not")
    func outsideTheScope() {
        var route = route("https://c.example/x", admitting: ["https://a.example/"])
        #expect(!route.sendsCredentials)
        #expect(route.follow("https://a.example/x") == nil && !route.sendsCredentials)
    }

    @Test("a Location with control characters, escape sequences or spaces is refused",
          arguments: ["https://a.example/\u{1B}[31mred", "https://a.example/x\r\nSet-Cookie: a=b", "https://a.example/a b",
                      "https://a.example/\u{9B}2J", "https://a.example/\u{0}"])
    func escapesAreRefused(location: String) throws {
        var route = route("https://a.example/x")
        let refusal = route.follow(location)
        let reason = try #require(refusal?.reason)
        #expect(reason.hasPrefix("refused a redirect to "))
        #expect(!reason.contains("\u{1B}") && !reason.contains("\r") && !reason.contains("\u{9B}"))
        #expect(route.url == "https://a.example/x" && route.hops == 0)
    }
}
