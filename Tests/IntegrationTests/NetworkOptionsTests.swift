import Foundation
import Testing
import TestSupport

/// Every command that makes a request (`plan URL`, `verify URL`,
/// `verify --repair`) takes the network options `pull` takes.
@Suite struct NetworkOptionsTests {
    @Test("plan URL and verify URL send --header to a server that requires it")
    func planAndVerifyOfAManifestURLSendTheHeader() throws {
        let sandbox = try Sandbox(serving: ["a.bin": PullNginxTests.random(5000)])
        let nginx = try NginxServer(root: sandbox.served, extraConfig: """
            location /private/ {
                alias \(sandbox.served.path)/;
                if ($http_x_token != "s3cret") { return 403; }
            }
            """)
        defer { nginx.stop() }
        try sandbox.serveManifest(base: nginx.url("private/"))
        let url = nginx.url("private/manifest.json")
        let header = ["--header", "X-Token: s3cret"]

        let refused = try AssetSyncBinary.run(["plan", url, "--dest", sandbox.dest])
        #expect(refused.status == 1)
        #expect(refused.stderr == "Error: cannot fetch the manifest \(url): HTTP 403. Nothing was downloaded.\n")

        let plan = try AssetSyncBinary.run(["plan", url, "--dest", sandbox.dest] + header)
        #expect(plan.status == 0, "\(plan.stderr)")
        #expect(plan.stdout.contains("new      4.9 KiB     a.bin\n"))

        #expect(try AssetSyncBinary.run(["pull", url, "--dest", sandbox.dest] + header).status == 0)
        #expect(try AssetSyncBinary.run(["verify", url, "--dest", sandbox.dest]).status == 1)
        let verify = try AssetSyncBinary.run(["verify", url, "--dest", sandbox.dest] + header)
        #expect(verify.status == 0, "\(verify.stderr)")
        #expect(verify.stderr.hasPrefix("Verified 1 files: 1 good, 0 missing, 0 corrupt"))
        // Refused, plan, pull, refused, then verify asks conditionally: the header reached each request.
        #expect(nginx.waitForAccessLog(count: 6).filter { $0.path == "/private/manifest.json" }.map(\.status) == [403, 200, 200, 403, 304])
    }

    /// The S3 options are checked as options are; the store's settings only once a manifest names
    /// the store, and then a profile that is nowhere stops the run before any request.
    @Test func theObjectStoreSettingsAreCheckedWhenAManifestNamesTheStore() throws {
        let sandbox = try Sandbox()
        let home = ["HOME": sandbox.root.path, "AWS_PROFILE": ""]
        let style = try AssetSyncBinary.run(["plan", "s3://assets/m.json", "--addressing-style", "sideways"], environment: home)
        #expect(style.status == 2)
        #expect(style.stderr.hasPrefix("Error: '--addressing-style' must be auto, path or virtual, not \"sideways\"\n"), "\(style.stderr)")

        let profile = try AssetSyncBinary.run(["pull", "s3://assets/m.json", "--dest", sandbox.dest, "--profile", "nosuch"], environment: home)
        #expect(profile.status == 2, "\(profile.stderr)")
        #expect(profile.stderr == """
            Error: the manifest names an S3 store, but its settings cannot be used: the AWS profile "nosuch" is in neither \
            "\(sandbox.root.path)/.aws/credentials" nor "\(sandbox.root.path)/.aws/config". Fix them, or give --endpoint-url, \
            --region and --profile. Nothing was downloaded.

            """, "\(profile.stderr)")

        let header = try AssetSyncBinary.run(["plan", "s3://assets/m.json", "--header", "X-Token: t"], environment: home)
        #expect(header.status == 2 && header.stderr.hasPrefix(
            "Error: with an s3:// manifest (whose store takes its own key), '--header' and '--netrc' go only to hosts named with '--auth-host HOST'\n"),
            "\(header.stderr)")

        // A manifest naming no store reads no AWS setting: the same profile is never looked for.
        try sandbox.serve("a.bin", Data("a".utf8))
        let local = try AssetSyncBinary.run(["plan", sandbox.manifest(base: "http://127.0.0.1:9/"), "--dest", sandbox.dest, "--profile", "nosuch"], environment: home)
        #expect(local.status == 0, "\(local.stderr)")
    }

    @Test("verify --repair trusts --cacert against an HTTPS server")
    func verifyRepairTakesCacert() throws {
        let sandbox = try Sandbox(serving: ["a.bin": PullNginxTests.random(3000), "b/c.bin": PullNginxTests.random(100)])
        let (certificate, key) = try sandbox.makeCertificate()
        let tlsPort = try LoopbackSocket.freePort()
        let nginx = try NginxServer(root: sandbox.served, httpConfig: """
            server {
                listen 127.0.0.1:\(tlsPort) ssl;
                ssl_certificate \(certificate);
                ssl_certificate_key \(key);
                root \(sandbox.served.path);
            }
            """)
        defer { nginx.stop() }
        let manifest = try sandbox.manifest(base: "https://127.0.0.1:\(tlsPort)/")

        let untrusted = try AssetSyncBinary.run(["verify", manifest, "--dest", sandbox.dest, "--repair"])
        #expect(untrusted.status == 1)
        #expect(untrusted.stderr.contains("SSL certificate problem: self-signed certificate"))
        let repaired = try AssetSyncBinary.run(["verify", manifest, "--dest", sandbox.dest, "--repair", "--cacert", certificate])
        #expect(repaired.status == 0, "\(repaired.stderr)")
        #expect(try sandbox.cached() == sandbox.expected)
    }

    @Test("a bad network option is a usage error of the command that was typed")
    func badNetworkOptionNamesItsCommand() throws {
        let result = try AssetSyncBinary.run(["verify", "m.xml", "--repair", "--cacert", "/nonexistent/ca.pem"])
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix("Error: '--cacert' file \"/nonexistent/ca.pem\" cannot be read\nUsage: assetsync verify "))
        #expect(result.stderr.hasSuffix("See 'assetsync verify --help' for more information.\n"))
    }
}
