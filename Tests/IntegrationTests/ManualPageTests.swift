import Foundation
import Testing
import TestSupport

/// `assetsync --generate-manual`: a manual page that man renders without a warning and that says,
/// line for line, what `--help` says.
@Suite struct ManualPageTests {
    static let groff = "/usr/bin/groff"
    static let man = "/usr/bin/man"
    static let commands = ["pull", "plan", "verify", "manifest"]

    private static func manualPage(in directory: TemporaryDirectory) throws -> String {
        let result = try AssetSyncBinary.run(["--generate-manual"])
        #expect(result.status == 0)
        #expect(result.stderr == "")
        return try directory.write("assetsync.1", result.stdout)
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: groff), "groff is not installed (make deps installs groff-base)"))
    func groffFindsNothingToWarnAbout() throws {
        let directory = try TemporaryDirectory()
        let page = try Self.manualPage(in: directory)
        let lint = try AssetSyncBinary.runTool(Self.groff, ["-man", "-ww", "-z", page])
        #expect(lint.status == 0)
        #expect(lint.stderr == "")
    }

    @Test func theManualTakesNoArgument() throws {
        let result = try AssetSyncBinary.run(["--generate-manual", "pull"])
        #expect(result.status == 2)
        #expect(result.stdout == "")
        #expect(result.stderr.hasPrefix("Error: Unexpected argument 'pull'\n"))
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: man), "man is not installed (make deps installs man-db)"))
    func manRendersItWithoutWarnings() throws {
        let directory = try TemporaryDirectory()
        let page = try Self.manualPage(in: directory)
        var environment = ProcessInfo.processInfo.environment
        environment["MANWIDTH"] = "80"
        environment["MANPAGER"] = "cat"
        let rendered = try AssetSyncBinary.runTool(Self.man, ["--warnings", "-l", page], environment: environment)
        #expect(rendered.status == 0)
        #expect(rendered.stderr == "")
        #expect(rendered.stdout.contains("assetsync - mirror large remote files"))
    }

    /// Each section of each help page appears in the manual, its lines in order, once filling has
    /// moved the line breaks: the top-level help before the first command's subsection, each
    /// command's help in its own subsection.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: groff), "groff is not installed (make deps installs groff-base)"))
    func theManualSaysWhatTheHelpSays() throws {
        let directory = try TemporaryDirectory()
        let page = try Self.manualPage(in: directory)
        // Plain ASCII, no bold or underlining, lines so long that nothing is hyphenated.
        let rendered = try AssetSyncBinary.runTool(Self.groff, ["-man", "-Tascii", "-P-cbou", "-rLL=5000n", page])
        #expect(rendered.status == 0)
        var blocks: [String: Substring] = [:]
        var rest = rendered.stdout[...]
        for (name, next) in zip(["--help"] + Self.commands, Self.commands.map(Optional.some) + [nil]) {
            let end = next.flatMap { rest.range(of: "\n   assetsync \($0)\n") }?.lowerBound ?? rest.endIndex
            blocks[name] = rest[..<end]
            rest = rest[end...]
        }
        for name in ["--help"] + Self.commands {
            let help = try AssetSyncBinary.run(name == "--help" ? [name] : [name, "--help"]).stdout
            let block = Self.collapsed(blocks[name] ?? "")
            for section in Self.sections(of: help) {
                var position = block.startIndex
                for line in section {
                    guard let found = block.range(of: Self.collapsed(line[...]), range: position..<block.endIndex) else {
                        Issue.record("the manual's part for '\(name)' lacks, or has out of order, the help's line: \(line)")
                        break
                    }
                    position = found.upperBound
                }
            }
        }
    }

    /// The help's sections, each as its lines without the title (`OVERVIEW: Text` keeps `Text`).
    private static func sections(of help: String) -> [[String]] {
        var sections: [[String]] = []
        for line in help.split(separator: "\n") {
            if let colon = line.firstIndex(of: ":"), line[..<colon].allSatisfy({ $0.isUppercase || $0 == " " }), !line.hasPrefix(" ") {
                let rest = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                sections.append(rest.isEmpty ? [] : [rest])
            } else if !line.allSatisfy({ $0 == " " }) {
                sections[sections.count - 1].append(String(line))
            }
        }
        return sections
    }

    /// Runs of white space as one space.
    private static func collapsed(_ text: Substring) -> String {
        text.split(whereSeparator: { $0 == " " || $0 == "\n" }).joined(separator: " ")
    }
}
