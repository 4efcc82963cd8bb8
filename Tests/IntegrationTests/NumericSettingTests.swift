import Foundation
import Testing
import TestSupport

/// Every numeric option and `ASSETSYNC_*` variable goes through one
/// range-checked parser; a bad value is a usage error (exit 2) naming it, never a crash, a
/// wrap-around or a silent clamp.
@Suite struct NumericSettingTests {
    /// pull's usage lines, as the golden usage error pins them.
    static let pullUsage: String = {
        let golden = try! String(
            contentsOf: AssetSyncBinary.packageRoot.appendingPathComponent("Tests/IntegrationTests/Golden/usage-error-pull.txt"),
            encoding: .utf8)
        return String(golden.drop { $0 != "\n" }.dropFirst())
    }()
    static let rate = "must be bytes per second from 1 to 1024G, such as 500K, 20M or 1G, not"

    @Test("a bad numeric option exits 2 naming the option, the value and the range", arguments: [
        (["--limit-rate", "1e30"], "'--limit-rate' \(rate) \"1e30\""),
        (["--limit-rate", "0.5"], "'--limit-rate' \(rate) \"0.5\""),
        (["--limit-rate", "0"], "'--limit-rate' \(rate) \"0\""),
        (["--limit-rate", "1025G"], "'--limit-rate' \(rate) \"1025G\""),
        (["--limit-rate", "nan"], "'--limit-rate' \(rate) \"nan\""),
        (["--limit-rate", "-5M"], "'--limit-rate' \(rate) \"-5M\""),
        (["--jobs", "0"], "'--jobs' must be a whole number from 1 to 64, not \"0\""),
        (["--jobs", "65"], "'--jobs' must be a whole number from 1 to 64, not \"65\""),
        (["--jobs", "1.5"], "'--jobs' must be a whole number from 1 to 64, not \"1.5\""),
        (["--jobs", "99999999999999999999999"], "'--jobs' must be a whole number from 1 to 64, not \"99999999999999999999999\""),
        (["--retries", "-1"], "'--retries' must be a whole number from 0 to 100, not \"-1\""),
        (["--retries", "0x10"], "'--retries' must be a whole number from 0 to 100, not \"0x10\""),
        (["--lock-wait", "nan"], "'--lock-wait' must be seconds from 0 to 86400, not \"nan\""),
        (["--lock-wait", "inf"], "'--lock-wait' must be seconds from 0 to 86400, not \"inf\""),
        (["--splay", "1e30"], "'--splay' must be seconds from 0 to 86400, not \"1e30\""),
        (["--splay", "86401"], "'--splay' must be seconds from 0 to 86400, not \"86401\""),
        (["--delete", "--max-delete", "-1"], "'--max-delete' must be a whole number from 0 to 1000000000, not \"-1\""),
        (["--delete", "--max-delete", "1e3"], "'--max-delete' must be a whole number from 0 to 1000000000, not \"1e3\""),
        (["--jobs", "1\u{1B}[31m"], "'--jobs' must be a whole number from 1 to 64, not \"1\\u{1b}[31m\""),
    ])
    func badOption(_ option: [String], _ message: String) throws {
        let result = try AssetSyncBinary.run(["pull", "m.xml"] + option)
        #expect(result.status == 2)
        #expect(result.stdout == "")
        #expect(result.stderr == "Error: \(message)\n" + Self.pullUsage)
    }

    @Test("a bad ASSETSYNC_* variable exits 2 naming the variable, the value and the range", arguments: [
        ("ASSETSYNC_STALL_TIMEOUT", "nan", "a whole number of seconds from 1 to 86400"),
        ("ASSETSYNC_STALL_TIMEOUT", "1e300", "a whole number of seconds from 1 to 86400"),
        ("ASSETSYNC_STALL_TIMEOUT", "0", "a whole number of seconds from 1 to 86400"),
        ("ASSETSYNC_RETRY_DELAY", "nan", "seconds from 0 to 3600"),
        ("ASSETSYNC_RETRY_DELAY", "1e300", "seconds from 0 to 3600"),
        ("ASSETSYNC_RETRY_DELAY", "-1", "seconds from 0 to 3600"),
        ("ASSETSYNC_BUFFER_SIZE", "nan", "a whole number of bytes from 16384 to 10485760"),
        ("ASSETSYNC_BUFFER_SIZE", "1e300", "a whole number of bytes from 16384 to 10485760"),
        ("ASSETSYNC_BUFFER_SIZE", "", "a whole number of bytes from 16384 to 10485760"),
    ])
    func badVariable(_ name: String, _ value: String, _ range: String) throws {
        var environment = ProcessInfo.processInfo.environment
        environment[name] = value
        let result = try AssetSyncBinary.run(["pull", "m.xml"], environment: environment)
        #expect(result.status == 2)
        #expect(result.stdout == "")
        #expect(result.stderr == "Error: the environment variable \(name) must be \(range), not \"\(value)\"\n" + Self.pullUsage)
        // Every command that makes requests reads them, with its own usage line.
        let plan = try AssetSyncBinary.run(["plan", "m.xml"], environment: environment)
        #expect(plan.status == 2)
        #expect(plan.stderr.hasPrefix("Error: the environment variable \(name) must be \(range)"))
        #expect(plan.stderr.hasSuffix("See 'assetsync plan --help' for more information.\n"))
    }

    @Test("values in range are accepted, units and fractions included")
    func goodValuesAreAccepted() throws {
        let work = try TemporaryDirectory()
        let manifest = try TestManifest.write([], base: "http://127.0.0.1:9/", in: work)
        var environment = ProcessInfo.processInfo.environment
        environment["ASSETSYNC_STALL_TIMEOUT"] = "86400"
        environment["ASSETSYNC_RETRY_DELAY"] = "0.05"
        environment["ASSETSYNC_BUFFER_SIZE"] = "16384"
        let result = try AssetSyncBinary.run(
            ["pull", manifest, "--dest", work.path + "/dest", "--limit-rate", "1.5K", "--jobs", "64", "--retries", "0",
             "--lock-wait", "0.5", "--splay", "0", "--delete", "--max-delete", "0"],
            environment: environment)
        #expect(result.status == 0, "\(result.stderr)")
    }
}
