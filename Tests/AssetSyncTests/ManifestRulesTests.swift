import Testing
@testable import AssetSyncCLI
@testable import AssetSyncCache
@testable import AssetSyncManifestIO
@testable import AssetSyncModel
@testable import AssetSyncPull
@testable import AssetSyncSystem
@testable import AssetSyncTransfer

/// Each field rule of DESIGN.md §1, with the exact words of its error.
@Suite struct ManifestRulesTests {
    private func pathProblem(_ text: String) -> String? { brokenRule { () throws(RuleViolation) in try ManifestRules.path(text) } }

    @Test func acceptsOrdinaryPaths() throws {
        for path in ["a", "videos/intro.mp4", "config/settings v2.json", "...", "a/.hidden", "ü/日本.bin", ".assetsyncx/a"] {
            #expect(pathProblem(path) == nil, "\(path)")
        }
    }

    @Test(arguments: [
        ("", "path must not be empty"),
        ("/etc/passwd", "path must be relative, not absolute: \"/etc/passwd\""),
        ("../x", "path must not have a \".\" or \"..\" component: \"../x\""),
        ("a/../../x", "path must not have a \".\" or \"..\" component: \"a/../../x\""),
        ("a/./b", "path must not have a \".\" or \"..\" component: \"a/./b\""),
        ("..", "path must not have a \".\" or \"..\" component: \"..\""),
        ("a//b", "path must not have an empty component (\"//\" or a trailing \"/\"): \"a//b\""),
        ("a/", "path must not have an empty component (\"//\" or a trailing \"/\"): \"a/\""),
        ("..\\x", "path must not contain a backslash: \"..\\\\x\""),
        ("a\u{0}b", "path must not contain control characters: \"a\\u{00}b\""),
        ("a\nb", "path must not contain control characters: \"a\\nb\""),
        ("a\u{85}b", "path must not contain control characters: \"a\\u{85}b\""),
        (".assetsync/state", "path must not be under .assetsync/, which assetsync keeps for itself: \".assetsync/state\""),
        (".assetsync", "path must not be under .assetsync/, which assetsync keeps for itself: \".assetsync\""),
    ])
    func rejectsPath(_ path: String, _ expected: String) {
        #expect(pathProblem(path) == expected)
    }

    @Test func rejectsOverlongPaths() {
        let component = String(repeating: "x", count: 256)
        #expect(pathProblem(component)?.hasPrefix("path components must be at most 255 bytes long: \"xxx") == true)
        #expect(pathProblem(String(repeating: "x", count: 255)) == nil)
        let long = Array(repeating: String(repeating: "y", count: 200), count: 21).joined(separator: "/")
        #expect(long.utf8.count > 4096)
        #expect(pathProblem(long)?.hasPrefix("path must be at most 4096 bytes long: \"yyy") == true)
        #expect(pathProblem(long)?.hasSuffix("… (4220 bytes)") == true)
    }

    private func sizeProblem(_ text: String) -> String? { brokenRule { () throws(RuleViolation) in try ManifestRules.size(text) } }

    @Test func parsesSizes() throws {
        #expect(try ManifestRules.size("0") == 0)
        #expect(try ManifestRules.size("734003200") == 734_003_200)
        #expect(try ManifestRules.size("9223372036854775807") == Int64.max)
    }

    @Test(arguments: [
        ("", "size must not be empty"),
        ("-1", "size must not be negative: \"-1\""),
        ("9223372036854775808", "size must fit in a signed 64-bit integer (at most 9223372036854775807): \"9223372036854775808\""),
        ("1.5", "size must be a whole number of bytes, without fraction or exponent: \"1.5\""),
        ("1e3", "size must be a whole number of bytes, without fraction or exponent: \"1e3\""),
        ("+5", "size must be a non-negative decimal integer: \"+5\""),
        (" 5", "size must be a non-negative decimal integer: \" 5\""),
        ("0x10", "size must be a non-negative decimal integer: \"0x10\""),
    ])
    func rejectsSize(_ text: String, _ expected: String) {
        #expect(sizeProblem(text) == expected)
    }

    @Test func parsesCRCs() throws {
        #expect(try ManifestRules.crc32("6a75c367") == 0x6a75_c367)
        #expect(try ManifestRules.crc32("FFFFFFFF") == 0xFFFF_FFFF)
        #expect(try ManifestRules.crc32("00000000") == 0)
    }

    @Test(arguments: [
        ("6a75c36", "crc32 must be exactly 8 hex digits: \"6a75c36\""),
        ("1ffffffff", "crc32 must be exactly 8 hex digits: \"1ffffffff\""),
        ("6a75c36g", "crc32 must be hexadecimal (8 digits, no \"0x\"): \"6a75c36g\""),
        ("0x6a75c3", "crc32 must be hexadecimal (8 digits, no \"0x\"): \"0x6a75c3\""),
        ("", "crc32 must be exactly 8 hex digits: \"\""),
    ])
    func rejectsCRC(_ text: String, _ expected: String) {
        #expect(brokenRule { () throws(RuleViolation) in try ManifestRules.crc32(text) } == expected)
    }

    @Test func versions() throws {
        #expect(try ManifestRules.version("1") == 1)
        #expect(throws: RuleViolation("version 2 is not supported; this assetsync reads version 1")) {
            try ManifestRules.version("2")
        }
        #expect(throws: RuleViolation("version must be the number 1", value: "\"1.0\"")) {
            try ManifestRules.version("1.0")
        }
    }
}
