import Testing
@testable import AssetSyncCLI
@testable import AssetSyncCache
@testable import AssetSyncManifestIO
@testable import AssetSyncModel
@testable import AssetSyncPull
@testable import AssetSyncSystem
@testable import AssetSyncTransfer

@Suite struct URLRulesTests {
    /// Found by `make fuzz` (fuzz/regressions/http): a base whose path has no "/" trapped on a force
    /// unwrap. RFC 3986 §5.2.3 merges a reference into such a path as into no directory at all.
    @Test func aRelativeReferenceAgainstABasePathWithoutASlashDoesNotTrap() {
        let base = String(decoding: Array("https://o".utf8) + [0x00, 0x87, 0x3F, 0xD6, 0x9A, 0xEF, 0xBF], as: UTF8.self)
        let resolved = try? URLRules.resolve("h", against: base, field: "url")
        #expect(resolved.map { $0.hasPrefix("https://o") } ?? true, "\(resolved ?? "refused")")
    }

    @Test func acceptsHTTPAndHTTPS() throws {
        #expect(try URLRules.check("https://cdn.example.com/a.zip", field: "url") == ("https://cdn.example.com/a.zip", true))
        #expect(try URLRules.check("HTTP://[::1]:8080/a?x=1&y=2", field: "url").isAbsolute)
        #expect(try URLRules.check("packs/a.zip", field: "url") == ("packs/a.zip", false))
    }

    @Test func anObjectStoresURLNamesABucketAndResolvesAsAnyOther() throws {
        #expect(try URLRules.check("s3://assets/dir/a%20b.bin", field: "url").isAbsolute)
        #expect(try URLRules.resolve("dir/a.bin", against: "s3://assets/v2/", field: "url") == "s3://assets/v2/dir/a.bin")
        #expect(URLRules.origin(of: "S3://assets/dir/a.bin") == "s3://assets")
        #expect(URLRules.isObjectStoreURL("S3://assets/a") && !URLRules.isObjectStoreURL("s3:/assets") && !URLRules.isObjectStoreURL("https://s3/a"))
        let manifest = Manifest(base: "https://cdn.example/", entries: [ManifestEntry(path: "a", size: 1, crc32: 1, mirrors: ["s3://assets/a"])])
        #expect(manifest.namesObjectStore && !Manifest(base: "https://cdn.example/", entries: []).namesObjectStore)
    }

    @Test(arguments: [
        ("s3://as/k", "url must name a bucket (s3://BUCKET/KEY: 3 to 63 lowercase letters, digits, dots and hyphens)"),
        ("s3://Assets/k", "url must name a bucket (s3://BUCKET/KEY: 3 to 63 lowercase letters, digits, dots and hyphens)"),
        ("s3://assets:9000/k", "url must name a bucket (s3://BUCKET/KEY: 3 to 63 lowercase letters, digits, dots and hyphens)"),
        ("s3://key:secret@assets/k", "url must not carry credentials"),
    ])
    func anObjectStoresURLCarriesNothingButABucketAndAKey(_ url: String, _ problem: String) {
        #expect(throws: RuleViolation(problem, value: QuotedValue.quote(url), remedy: url.contains("@") ? .credentialsOutsideTheURL : nil)) {
            try URLRules.check(url, field: "url")
        }
    }

    @Test(arguments: [
        ("ftp://example.com/a", "url must use http, https or s3, not ftp"),
        ("file:///etc/passwd", "url must use http, https or s3, not file"),
        ("javascript:alert(1)", "url must use http, https or s3, not javascript"),
        ("https://example.com/a\r\nX-Injected: 1", "url must not contain spaces or control characters (such as CR or LF)"),
        ("https://example.com/a b", "url must not contain spaces or control characters (such as CR or LF)"),
        ("https://example.com/é", "url must be ASCII; percent-encode other characters"),
        ("https:/example.com/a", "url must have a host (https://host/…)"),
        ("https:///a", "url must have a host"),
        ("https://example.com:99999/a", "url has an invalid port"),
        ("", "url must not be empty"),
    ])
    func rejects(_ url: String, _ problem: String) {
        #expect(throws: RuleViolation(problem, value: url.isEmpty ? nil : QuotedValue.quote(url))) {
            try URLRules.check(url, field: "url")
        }
    }

    /// The rule names no option: the command line words where credentials go.
    @Test func refusesCredentialsAndTheCommandLineSaysWhereTheyGo() {
        let url = "https://user:secret@example.com/a"
        #expect(throws: RuleViolation("url must not carry credentials", value: QuotedValue.quote(url), remedy: .credentialsOutsideTheURL)) {
            try URLRules.check(url, field: "url")
        }
        #expect("url must not carry credentials" + Remedy.credentialsOutsideTheURL.words == "url must not carry credentials; use --netrc or --header")
    }

    @Test func resolvesRelativeReferences() throws {
        let base = "https://cdn.example.com/game/v2/"
        #expect(try URLRules.resolve("a.zip", against: base, field: "url") == "https://cdn.example.com/game/v2/a.zip")
        #expect(try URLRules.resolve("../v1/a.zip", against: base, field: "url") == "https://cdn.example.com/game/v1/a.zip")
        #expect(try URLRules.resolve("/root.zip?x=1", against: base, field: "url") == "https://cdn.example.com/root.zip?x=1")
        #expect(try URLRules.resolve("//mirror.example.com/a", against: base, field: "url") == "https://mirror.example.com/a")
        #expect(try URLRules.resolve("../../../../x", against: base, field: "url") == "https://cdn.example.com/x")
    }

    @Test func percentEncodesPaths() {
        #expect(URLRules.percentEncodedPath("videos/intro.mp4") == "videos/intro.mp4")
        #expect(URLRules.percentEncodedPath("config/settings v2.json") == "config/settings%20v2.json")
        #expect(URLRules.percentEncodedPath("a?#%/é") == "a%3F%23%25/%C3%A9")
    }

    /// RFC 3986 section 6.2.2 (case, percent-encoding, dot segments) and 6.2.3 (the scheme's default
    /// port, an empty path): each spelling of one URL comes out the same.
    @Test(arguments: [
        ("http://H/", "http://h/"),
        ("HTTP://H/", "http://h/"),
        ("http://H/./", "http://h/"),
        ("http://H/x/../", "http://h/"),
        ("http://H", "http://h/"),
        ("http://H:80/", "http://h/"),
        ("http://H:0080/", "http://h/"),
        ("https://H:443/a", "https://h/a"),
        ("https://H:80/a", "https://h:80/a"),
        ("http://H:443/a", "http://h:443/a"),
        ("http://%48/", "http://h/"),
        ("http://h/%7euser/%41%2d%2E%5F", "http://h/~user/A-._"),
        ("http://h/a%2fb%3a", "http://h/a%2Fb%3A"),
        ("http://h/a/%2E%2E/b", "http://h/b"),
        ("http://h/a/./b/../c/.", "http://h/a/c/"),
        ("http://h/A/B", "http://h/A/B"),
        ("http://h/a?Q=%7e&x=%2f", "http://h/a?Q=~&x=%2F"),
        ("http://h/a#Frag", "http://h/a"),
        ("http://[::1]:80/a", "http://[::1]/a"),
        ("http://[::1]:8080/a", "http://[::1]:8080/a"),
        ("http://h/100%", "http://h/100%"),
        ("http://h/%zz", "http://h/%zz"),
    ])
    func normalizes(_ url: String, _ normal: String) {
        #expect(URLRules.normalized(url) == normal)
    }

    @Test func tellsSourcesApartOnlyWhereAServerCould() {
        #expect(URLRules.sameSource("http://H/x/../f.bin", "HTTP://h:80/./f.bin"))
        #expect(!URLRules.sameSource("http://h/F.bin", "http://h/f.bin"))  // a path's case is the server's
        #expect(!URLRules.sameSource("http://h/a%2Fb", "http://h/a/b"))  // an encoded "/" is not a "/"
        #expect(!URLRules.sameSource("http://h/a", "https://h/a"))
        #expect(!URLRules.sameSource("http://h/a?v=1", "http://h/a?v=2"))
        #expect(URLRules.normalized("ftp://h/a") == nil && URLRules.normalized("a/b") == nil)
        #expect(URLRules.sameSource("a/b", "a/b") && !URLRules.sameSource("a/b", "a/./b"))
    }
}
