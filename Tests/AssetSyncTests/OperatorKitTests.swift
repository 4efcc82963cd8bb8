import Testing
@testable import AssetSyncCLI

/// The manual page and the completion scripts are made from the command specs and their help, so
/// that an option added there appears in both without other changes.
@Suite struct OperatorKitTests {
    /// `pull` with one more option, added only where a new option is added: its spec entry and its help line.
    private static let pullWithANewOption: CommandSpec = {
        let pull = HelpText.pull
        let helpLine = "  -h, --help              Show help information.\n"
        precondition(pull.help.contains(helpLine) && pull.help.contains("[--trusted-key <file> ...]\n\nARGUMENTS:"))
        return CommandSpec(
            name: pull.name, usage: pull.usage + " [--report-file <path>]", arguments: pull.arguments,
            valueOptions: pull.valueOptions.merging(["--report-file": "<path>"]) { own, _ in own }, flags: pull.flags,
            repeatable: pull.repeatable,
            help: pull.help.replacing(helpLine, with: "  --report-file <path>   Write the run's metrics here: 'name value' lines.\n" + helpLine)
                .replacing("[--trusted-key <file> ...]\n\nARGUMENTS:", with: "[--trusted-key <file> ...] [--report-file <path>]\n\nARGUMENTS:"))
    }()

    @Test func aNewOptionCompletesInEveryShell() throws {
        let outline = CompletionOutline(main: HelpText.main, commands: [Self.pullWithANewOption])
        let pull = try #require(outline.commands.first { $0.name == "pull" })
        let option = try #require(pull.options.first { $0.names == ["--report-file"] })
        #expect(option.value == .files)
        #expect(option.summary == "Write the run's metrics here: 'name value' lines.")
        #expect(pull.valueOptionNames.contains("--report-file"))

        #expect(CompletionShell.bash.script(for: outline).contains("|--report-file) _assetsync_reply -f; return ;;"))
        #expect(CompletionShell.zsh.script(for: outline).contains(
            #"'--report-file=[Write the run'\''s metrics here\: '\''name value'\'' lines.]:path:_files'"#))
        #expect(CompletionShell.fish.script(for: outline).contains(
            #"-l 'report-file' -r -F -d 'Write the run\'s metrics here: \'name value\' lines.'"#))
    }

    @Test func aNewOptionIsInTheManualPage() {
        let page = ManualPage.render(commands: [Self.pullWithANewOption])
        #expect(page.contains(".TP\n\\fB\\-\\-report\\-file\\fR \\fI<path>\\fR\nWrite the run\\(aqs metrics here: \\(aqname value\\(aq lines.\n"))
        #expect(page.contains("[\\-\\-report\\-file <path>]"))
    }

    /// An option a spec accepts but its help forgets still completes, without a summary.
    @Test func anUndescribedOptionStillCompletes() throws {
        let pull = HelpText.pull
        let spec = CommandSpec(
            name: pull.name, usage: pull.usage, arguments: pull.arguments, valueOptions: pull.valueOptions,
            flags: pull.flags + ["--undescribed"], repeatable: pull.repeatable, help: pull.help)
        let command = try #require(CompletionOutline(main: HelpText.main, commands: [spec]).commands.first)
        let option = try #require(command.options.first { $0.names == ["--undescribed"] })
        #expect(option.value == nil)
        #expect(option.summary == "")
    }

    /// Every option of every real command, with its value's completion read from its placeholder.
    @Test func theOutlineHasEveryOptionOfEveryCommand() throws {
        for spec in HelpText.commands {
            let command = try #require(CompletionOutline.tool.commands.first { $0.name == spec.name })
            let names = Set(command.options.flatMap(\.names))
            #expect(names == Set(spec.valueOptions.keys).union(spec.flags).union(["-h", "--help"]), "\(spec.name)")
            #expect(command.options.allSatisfy { !$0.summary.isEmpty }, "\(spec.name)")
        }
        let manifest = try #require(CompletionOutline.tool.commands.first { $0.name == "manifest" })
        #expect(manifest.arguments.map(\.value) == [.directories])
        #expect(manifest.options.first { $0.names == ["--format"] }?.value == .choices(["xml", "json", "meta4"]))
        #expect(manifest.options.first { $0.names == ["--output"] }?.value == .files)
        #expect(manifest.options.first { $0.names == ["--base"] }?.value == .anything)
        let pull = try #require(CompletionOutline.tool.commands.first { $0.name == "pull" })
        #expect(pull.arguments.map(\.value) == [.files])
        #expect(pull.options.first { $0.names == ["--dest"] }?.value == .directories)
        #expect(pull.options.first { $0.names == ["--header"] }?.repeatable == true)
        #expect(CompletionOutline.tool.commands.map(\.name) == HelpText.commands.map(\.name) + ["help"])
    }

    @Test func aHelpPageReadsBackIntoSectionsAndEntries() throws {
        let page = HelpPage(HelpText.plan.help)
        #expect(page.sections.map(\.title) == ["OVERVIEW", "USAGE", "ARGUMENTS", "OPTIONS", "EXAMPLES", "EXIT STATUS"])
        #expect(page.overview == "Show what a pull would do, without downloading anything.")
        let proxy = try #require(page.entries(of: "OPTIONS").first { $0.names == ["--proxy"] })
        #expect(proxy.label == "--proxy <url>")
        #expect(proxy.description == ["Use this proxy. (default: the http_proxy, https_proxy and", "no_proxy environment variables)"])
        #expect(proxy.summary == "Use this proxy.")
        #expect(page.entries(of: "OPTIONS").first { $0.label == "-h, --help" }?.names == ["-h", "--help"])
        let main = HelpPage(HelpText.main)
        #expect(main.entries(of: "SUBCOMMANDS").map(\.label) == ["pull", "plan", "verify", "manifest", "sign", "rollback"])
        guard case .text(let see) = main.items(of: "SUBCOMMANDS").last else {
            Issue.record("the line after the subcommands is not read as text")
            return
        }
        #expect(see == "See 'assetsync help <subcommand>' for detailed help.")
    }
}
