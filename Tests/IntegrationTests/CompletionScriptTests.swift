import Foundation
import Testing
import TestSupport

/// `assetsync --generate-completion-script SHELL`: scripts the shells accept, which complete the
/// commands, options and values that `--help` describes.
@Suite struct CompletionScriptTests {
    static let bash = "/bin/bash"
    static let zsh = "/usr/bin/zsh"
    static let fish = "/usr/bin/fish"
    static let commands = ["pull", "plan", "verify", "manifest", "sign", "rollback"]

    /// The script for `shell`, written to a file of `directory`.
    private static func script(_ shell: String, in directory: TemporaryDirectory) throws -> String {
        let result = try AssetSyncBinary.run(["--generate-completion-script", shell])
        #expect(result.status == 0)
        #expect(result.stderr == "")
        return try directory.write("completion." + shell, result.stdout)
    }

    /// What the bash script offers for a command line whose last word is being completed, as bash
    /// calls the function that `complete -p assetsync` names, with COMP_WORDS and COMP_CWORD set.
    private static func bashCandidates(_ words: [String], script: String, in directory: TemporaryDirectory) throws -> [String] {
        let driver = """
            source "$1" || exit 3
            registration=$(complete -p assetsync) || exit 4
            [[ $registration == "complete -F "*" assetsync" ]] || exit 5
            function=${registration#complete -F }
            function=${function%% *}
            shift
            COMP_WORDS=("$@")
            COMP_CWORD=$(( $# - 1 ))
            COMP_LINE="$*"
            COMP_POINT=${#COMP_LINE}
            "$function" assetsync "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
            printf '%s\\n' "${COMPREPLY[@]}"
            """
        let result = try AssetSyncBinary.runTool(
            bash, ["--norc", "--noprofile", "-c", driver, "bash", script] + words, directory: directory.url)
        #expect(result.status == 0, "\(words): \(result.stderr)")
        #expect(result.stderr == "", "\(words)")
        return result.stdout.split(separator: "\n").map(String.init)
    }

    @Test func bashCompletesCommandsOptionsAndValues() throws {
        let directory = try TemporaryDirectory()
        try directory.write("m.xml", "")
        try directory.write("sub/placeholder", "")
        let script = try Self.script("bash", in: directory)
        func offered(_ words: String...) throws -> [String] { try Self.bashCandidates(words, script: script, in: directory) }

        #expect(try offered("assetsync", "pu") == ["pull"])
        #expect(try offered("assetsync", "") == Self.commands + ["help", "--version", "-h", "--help"])
        #expect(try offered("assetsync", "pull", "m.xml", "--de") == ["--dest", "--delete"])
        #expect(try offered("assetsync", "pull", "m.xml", "--dest", "") == ["sub"])
        #expect(try offered("assetsync", "pull", "m.xml", "--dest", "=") == ["sub"])
        #expect(try offered("assetsync", "pull", "m.xml", "--dest", "=", "s") == ["sub"])
        #expect(try offered("assetsync", "pull", "--jobs", "") == [])
        #expect(try offered("assetsync", "pull", "--jobs", "4", "").sorted() == ["m.xml", "sub", "completion.bash"].sorted())
        #expect(try offered("assetsync", "pull", "--jobs", "4", "m.xml", "") == [])
        #expect(try offered("assetsync", "verify", "--cacert", "m.") == ["m.xml"])
        #expect(try offered("assetsync", "manifest", "sub", "--format", "") == ["xml", "json", "meta4"])
        #expect(try offered("assetsync", "manifest", "") == ["sub"])
        #expect(try offered("assetsync", "help", "") == Self.commands)
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: fish), "fish is not installed (make deps installs it)"))
    func fishCompletesCommandsOptionsAndValues() throws {
        let directory = try TemporaryDirectory()
        try directory.write("sub/placeholder", "")
        let script = try Self.script("fish", in: directory)
        func offered(_ line: String) throws -> [String] {
            let result = try AssetSyncBinary.runTool(
                Self.fish, ["--no-config", "-c", "source $argv[1]; and complete -C $argv[2]", script, line], directory: directory.url)
            #expect(result.status == 0, "\(line): \(result.stderr)")
            #expect(result.stderr == "", "\(line)")
            return result.stdout.split(separator: "\n").map { String($0.split(separator: "\t")[0]) }
        }
        #expect(try offered("assetsync pu") == ["pull"])
        #expect(try offered("assetsync pull m.xml --de") == ["--delete", "--dest"])
        #expect(try offered("assetsync pull m.xml --dest ") == ["sub/"])
        #expect(try offered("assetsync manifest sub --format ") == ["json", "meta4", "xml"])
        #expect(try offered("assetsync ").count == Self.commands.count + 1)  // and help
        #expect(try offered("assetsync help ") == Self.commands.sorted())
    }

    @Test func bashScriptIsValid() throws { try checkSyntax(Self.bash, "bash") }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: zsh), "zsh is not installed (make deps installs it)"))
    func zshScriptIsValid() throws { try checkSyntax(Self.zsh, "zsh") }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: fish), "fish is not installed (make deps installs it)"))
    func fishScriptIsValid() throws { try checkSyntax(Self.fish, "fish") }

    /// `shell -n` reads the script without running it and reports any syntax error.
    private func checkSyntax(_ shellPath: String, _ shell: String) throws {
        let directory = try TemporaryDirectory()
        let script = try Self.script(shell, in: directory)
        let result = try AssetSyncBinary.runTool(shellPath, ["-n", script])
        #expect(result.status == 0, "\(shell) -n: \(result.stderr)")
        #expect(result.stderr == "")
    }

    /// Every option in a command's usage line completes in every shell's script, in that command's part.
    @Test(arguments: commands)
    func everyOptionOfTheHelpCompletes(_ command: String) throws {
        let usage = try #require(try AssetSyncBinary.run([command, "--help"]).stdout.split(separator: "\n").first { $0.hasPrefix("USAGE:") })
        let options = usage.split(separator: " ").filter { $0.hasPrefix("[--") || $0.hasPrefix("--") }
            .map { $0.trimmingCharacters(in: CharacterSet(charactersIn: "[]")) }
        try #require(!options.isEmpty)
        let directory = try TemporaryDirectory()
        let bash = try String(contentsOfFile: Self.script("bash", in: directory), encoding: .utf8)
        let bashFunction = try #require(bash.split(separator: "\n\n").first { $0.hasPrefix("_assetsync_\(command)()") })
        let bashOptionLine = try #require(bashFunction.split(separator: "\n").first { $0.contains("_assetsync_reply -W '-") })
        let bashOptions = bashOptionLine.split(separator: "'")[1].split(separator: " ").map(String.init)
        let zsh = try String(contentsOfFile: Self.script("zsh", in: directory), encoding: .utf8)
        let zshFunction = try #require(zsh.split(separator: "\n\n").first { $0.hasPrefix("_assetsync_\(command)()") })
        let fish = try String(contentsOfFile: Self.script("fish", in: directory), encoding: .utf8)
        for option in options {
            #expect(bashOptions.contains(option), "bash: \(command) \(option)")
            #expect(zshFunction.contains("'\(option)[") || zshFunction.contains("'\(option)=[") || zshFunction.contains("'*\(option)=["),
                    "zsh: \(command) \(option)")
            #expect(fish.contains("-n '__assetsync_subcommand_is \(command)' -l '\(option.dropFirst(2))'"), "fish: \(command) \(option)")
        }
    }

    @Test func anUnknownShellIsAUsageError() throws {
        let unknown = try AssetSyncBinary.run(["--generate-completion-script", "tcsh"])
        #expect(unknown.status == 2)
        #expect(unknown.stdout == "")
        #expect(unknown.stderr.hasPrefix("Error: Unknown shell \"tcsh\" for '--generate-completion-script': expected one of bash, zsh, fish\n"))
        let missing = try AssetSyncBinary.run(["--generate-completion-script"])
        #expect(missing.status == 2)
        #expect(missing.stderr.hasPrefix("Error: Missing value for '--generate-completion-script <shell>' (one of bash, zsh, fish)\n"))
        let extra = try AssetSyncBinary.run(["--generate-completion-script", "bash", "zsh"])
        #expect(extra.status == 2)
        #expect(extra.stderr.hasPrefix("Error: Unexpected argument 'zsh'\n"))
        let inline = try AssetSyncBinary.run(["--generate-completion-script=zsh"])
        #expect(inline.status == 0)
        #expect(inline.stdout == (try AssetSyncBinary.run(["--generate-completion-script", "zsh"])).stdout)
    }

    /// The options that print the manual and the scripts are for packagers: `--help` does not list them.
    @Test func theGeneratorsAreHidden() throws {
        for arguments in [["--help"]] + Self.commands.map({ [$0, "--help"] }) {
            let help = try AssetSyncBinary.run(arguments).stdout
            #expect(!help.contains("generate"), "\(arguments)")
        }
    }
}
