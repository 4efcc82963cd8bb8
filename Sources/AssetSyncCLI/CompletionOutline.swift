/// The command line as a shell completes it: the top-level options, then each command with its
/// options, arguments and one-line summaries. Names, values and repetition come from the command
/// specs, summaries from their help pages: a command or option added there completes without a
/// change here.
package struct CompletionOutline: Sendable {
    package struct Option: Sendable {
        /// One name, or several for one option (`-h` and `--help`).
        package let names: [String]
        /// The value's placeholder (`<dir>`, `xml|json`); nil for a flag.
        package let placeholder: String?
        package let repeatable: Bool
        package let summary: String

        /// What the value completes to; nil for a flag.
        package var value: ValueCompletion? { placeholder.map(ValueCompletion.init(placeholder:)) }
    }

    /// A positional argument: its placeholder (`<manifest>`) and what it completes to.
    package struct Argument: Sendable {
        package let placeholder: String
        package let value: ValueCompletion
    }

    package struct Command: Sendable {
        package let name: String
        package let summary: String
        package let arguments: [Argument]
        package let options: [Option]

        /// The names of the options that take a value: the word after one is not an argument.
        package var valueOptionNames: [String] { options.filter { $0.placeholder != nil }.flatMap(\.names) }
    }

    package let options: [Option]
    package let commands: [Command]

    /// The outline of `assetsync` itself.
    package static let tool = CompletionOutline(main: HelpText.main, commands: HelpText.commands)

    /// The outline of a tool whose top-level help is `main`, with `commands` and a `help <command>` command.
    package init(main: String, commands specs: [CommandSpec]) {
        let mainPage = HelpPage(main)
        options = mainPage.entries(of: "OPTIONS").map { entry in
            Option(names: entry.names, placeholder: nil, repeatable: false, summary: entry.summary)
        }
        var commands = specs.map(Self.command)
        let helpSummary = options.first { $0.names.contains("--help") }?.summary ?? ""
        commands.append(
            Command(
                name: "help", summary: helpSummary,
                arguments: [Argument(placeholder: "<subcommand>", value: .choices(specs.map(\.name)))], options: []))
        self.commands = commands
    }

    /// A command's options in its help's order (those the help does not describe last, by name),
    /// with `-h, --help`, which every command's help describes and the dispatcher handles.
    private static func command(_ spec: CommandSpec) -> Command {
        let page = HelpPage(spec.help)
        let accepted = Set(spec.valueOptions.keys).union(spec.flags)
        let described = page.entries(of: "OPTIONS")
        var options: [Option] = described.compactMap { entry in
            let names = entry.names
            guard let name = names.first else { return nil }
            guard accepted.contains(name) || names.contains("--help") else { return nil }
            return Option(names: names, placeholder: spec.valueOptions[name], repeatable: spec.repeatable.contains(name), summary: entry.summary)
        }
        let named = Set(options.flatMap(\.names))
        for name in accepted.subtracting(named).sorted() {
            options.append(Option(names: [name], placeholder: spec.valueOptions[name], repeatable: spec.repeatable.contains(name), summary: ""))
        }
        let arguments = spec.arguments.map { Argument(placeholder: $0, value: ValueCompletion(placeholder: $0)) }
        return Command(name: spec.name, summary: page.overview, arguments: arguments, options: options)
    }
}
