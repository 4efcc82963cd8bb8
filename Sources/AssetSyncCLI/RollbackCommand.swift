import AssetSync

/// `assetsync rollback`: point an atomic DEST back at its previous generation, under the store's lock,
/// once that generation is found as its pull left it.
package enum RollbackCommand {
    package static func run(_ arguments: ParsedArguments, context: CommandContext) throws(ExitStatus) {
        let console = context.console
        let wait: Double
        switch Waits.parse(arguments, environment: context.environment, command: "rollback") {
        case .success(let waits): wait = waits.lockWait
        case .failure(let error): throw CommandLineTool.usageFailure(error, console: console)
        }
        do {
            let (dest, shows) = try AssetSync.rollback(
                dest: arguments.value("--dest") ?? ".", reading: arguments.flags.contains("--verify"), lockWait: wait, in: context.effects,
                events: context.pullReporters(quiet: false, json: false))
            console.err("\(dest) now shows \(shows).\n")
        } catch {
            throw context.failures(command: "rollback").status(of: error)
        }
    }
}
