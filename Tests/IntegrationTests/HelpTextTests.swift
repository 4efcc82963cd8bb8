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
}
