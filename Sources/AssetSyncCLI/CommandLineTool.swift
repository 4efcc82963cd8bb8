import AssetSync
import Glibc
/// Dispatches a command line to its command and turns every failure into a
/// message on standard error and an exit status.
package enum CommandLineTool {
    /// The process's entry point: sets up the process (SIGPIPE, libcurl, the signal handlers),
    /// runs `words` and returns the exit status.
    package static func main(_ words: [String]) -> Int32 {
        // A reader that closes standard output (`| head`) makes a write fail with EPIPE instead of
        // killing the process: each command decides what that means (see Console.checkOutput).
        signal(SIGPIPE, SIG_IGN)
        let console = Console()
        // libcurl's and libxml2's set-up, here on the main thread rather than on the first request's.
        if let failure = AssetSync.setUpProcess() {
            console.err("Error: cannot set up libcurl: \(failure.message).\n")
            return ExitStatus(failure.kind).rawValue
        }
        Interruption.install()
        return run(words, context: .process(console: console)).rawValue
    }

    /// Runs the command that `words` name in `context`.
    package static func run(_ words: [String], context: CommandContext) -> ExitStatus {
        let console = context.console
        guard let first = words.first else { return show(HelpText.main, console: console) }
        switch first {
        case "-h", "--help":
            return show(HelpText.main, console: console)
        case "--version":
            return show(HelpText.version, console: console)
        case "--generate-manual":
            guard words.count == 1 else { return usageFailure(UsageError(message: "Unexpected argument '\(words[1])'"), console: console) }
            return show(ManualPage.render(), console: console)
        case let word where word.hasPrefix(completionOption):
            do {
                return show(try completionShell(words).script(), console: console)
            } catch {
                return usageFailure(error, console: console)
            }
        case "help":
            guard words.count > 1 else { return show(HelpText.main, console: console) }
            guard let spec = HelpText.commands.first(where: { $0.name == words[1] }) else {
                return usageFailure(UsageError(message: "Unknown subcommand '\(words[1])'"), console: console)
            }
            return show(spec.help, console: console)
        default:
            break
        }
        guard let spec = HelpText.commands.first(where: { $0.name == first }) else {
            let message = first.hasPrefix("-") ? "Unknown option '\(first)'" : "Unknown subcommand '\(first)'"
            return usageFailure(UsageError(message: message), console: console)
        }
        let rest = Array(words.dropFirst())
        if rest.contains(where: { $0 == "-h" || $0 == "--help" }) { return show(spec.help, console: console) }
        let arguments: ParsedArguments
        do {
            arguments = try spec.parse(rest)
        } catch {
            return usageFailure(error, console: console)
        }
        do {
            switch spec.name {
            case "pull": try PullCommand.run(arguments, context: context)
            case "verify": try VerifyCommand.run(arguments, context: context)
            case "manifest": try ManifestCommand.run(arguments, context: context)
            case "rollback": try RollbackCommand.run(arguments, context: context)
            case "sign": try SignCommand.run(arguments, context: context)
            default: try PlanCommand.run(arguments, context: context)
            }
            return .success
        } catch {
            return error
        }
    }

    /// The hidden option that prints a completion script, as swift-argument-parser tools have it.
    private static let completionOption = "--generate-completion-script"

    /// The shell of `--generate-completion-script SHELL` (or `=SHELL`), alone on the command line.
    private static func completionShell(_ words: [String]) throws(UsageError) -> CompletionShell {
        let shells = CompletionShell.allCases.map(\.rawValue).joined(separator: ", ")
        var values = Array(words.dropFirst())
        if words[0].hasPrefix(completionOption + "=") {
            values.insert(String(words[0].dropFirst(completionOption.count + 1)), at: 0)
        } else if words[0] != completionOption {
            throw UsageError(message: "Unknown option '\(words[0])'")
        }
        guard let name = values.first else { throw UsageError(message: "Missing value for '\(completionOption) <shell>' (one of \(shells))") }
        guard values.count == 1 else { throw UsageError(message: "Unexpected argument '\(values[1])'") }
        guard let shell = CompletionShell(rawValue: name) else {
            throw UsageError(message: "Unknown shell \(QuotedValue.quote(name)) for '\(completionOption)': expected one of \(shells)")
        }
        return shell
    }

    /// Help or version text: exit 0 once written, 3 when standard output cannot take it.
    private static func show(_ text: String, console: Console) -> ExitStatus {
        console.out(text)
        do { try console.checkOutput("the help", allowingClosedByReader: false) } catch { return error }
        return .success
    }

    package static func usageFailure(_ error: UsageError, console: Console) -> ExitStatus {
        let spec = HelpText.commands.first { $0.name == error.command }
        let usage = spec?.usage ?? HelpText.mainUsage
        let helpCommand = spec.map { "assetsync \($0.name) --help" } ?? "assetsync --help"
        console.err("Error: \(error.message)\nUsage: \(usage)\n  See '\(helpCommand)' for more information.\n")
        return ExitStatus(error.kind)
    }
}
