import Foundation
import Testing

/// Help and usage errors of the built binary, pinned word for word.
@Suite struct HelpTextTests {
    @Test func topLevelHelpAndVersion() throws {
        let help = try AssetSyncBinary.run(["--help"])
        #expect(help.status == 0)
        #expect(help.stderr == "")
        #expect(help.stdout.hasPrefix("OVERVIEW: Mirror large remote files"))
        #expect(help.stdout.contains("\nUSAGE: assetsync <subcommand>\n"))
        #expect(try AssetSyncBinary.run([]).stdout == help.stdout)
        #expect(try AssetSyncBinary.run(["help"]).stdout == help.stdout)

        let version = try AssetSyncBinary.run(["--version"])
        #expect(version.status == 0)
        #expect(version.stdout.hasPrefix("assetsync 0.1.0 (libcurl 7."))
    }

    /// Every page of help, and a usage error, word for word against `Golden/`. After a deliberate
    /// change, regenerate them: `B=.build/release/assetsync; $B --help > Tests/IntegrationTests/Golden/help.txt`,
    /// `$B <command> --help > …/help-<command>.txt`, `$B pull 2> …/usage-error-pull.txt`.
    @Test(arguments: [
        (["--help"], "help.txt"), (["pull", "--help"], "help-pull.txt"), (["plan", "--help"], "help-plan.txt"),
        (["verify", "--help"], "help-verify.txt"), (["manifest", "--help"], "help-manifest.txt"),
        (["rollback", "--help"], "help-rollback.txt"), (["sign", "--help"], "help-sign.txt"), (["help", "pull"], "help-pull.txt"),
    ])
    func helpMatchesItsGoldenFile(_ arguments: [String], _ golden: String) throws {
        let expected = try String(
            contentsOf: AssetSyncBinary.packageRoot.appendingPathComponent("Tests/IntegrationTests/Golden/" + golden), encoding: .utf8)
        let result = try AssetSyncBinary.run(arguments)
        #expect(result.status == 0)
        #expect(result.stderr == "")
        #expect(result.stdout == expected)
    }

    @Test func usageErrorMatchesItsGoldenFile() throws {
        let expected = try String(
            contentsOf: AssetSyncBinary.packageRoot.appendingPathComponent("Tests/IntegrationTests/Golden/usage-error-pull.txt"),
            encoding: .utf8)
        let result = try AssetSyncBinary.run(["pull"])
        #expect(result.status == 2)
        #expect(result.stdout == "")
        #expect(result.stderr == expected)
    }

    /// Every command's help describes every option it accepts, and shows an example.
    @Test(arguments: ["pull", "plan", "verify", "manifest"])
    func everyOptionIsDescribed(_ command: String) throws {
        let help = try AssetSyncBinary.run([command, "--help"]).stdout
        let usage = help.split(separator: "\n").first { $0.hasPrefix("USAGE:") }!
        let options = usage.split(separator: " ").filter { $0.hasPrefix("[--") || $0.hasPrefix("--") }
            .map { $0.trimmingCharacters(in: CharacterSet(charactersIn: "[]")) }
        for option in options { #expect(help.contains("\n  \(option)"), "\(command) --help does not describe \(option)") }
        #expect(help.contains("EXAMPLES:\n  assetsync \(command) "))
    }
}
