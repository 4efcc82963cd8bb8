import AssetSyncCache
import AssetSyncModel
import AssetSyncPull
import AssetSyncSystem

/// `assetsync rollback`: point an atomic DEST back at its previous generation, under the store's lock,
/// once that generation is found as its pull left it.
package enum RollbackCommand {
    package static func run(_ arguments: ParsedArguments, context: CommandContext) throws(ExitStatus) {
        let console = context.console
        let dest = arguments.value("--dest") ?? "."
        guard let mode = GenerationStore.rememberedMode(dest), !mode.leaving else {
            console.err("Error: --dest \(QuotedValue.quote(dest)) is not an atomic cache directory (no pull --atomic made it one), "
                + "so it has no generations to go back to.\n")
            throw .invalidInput
        }
        let store = try AtomicPull.openStore(dest, console: console, checkingFirst: {})
        let lock = try CommandSteps.lock(store.root, arguments, command: "rollback", context: context)
        defer { withExtendedLifetime(lock) {} }
        do {
            AtomicPull.tell(try GenerationPull.finishInterruptedSteps(of: store), console: console)
        } catch {
            console.err("Error: \(error.messageWithRemedy).\n")
            throw ExitStatus(error.kind)
        }
        let previous: String
        do {
            previous = try GenerationRollback.run(store, reading: arguments.flags.contains("--verify"))
        } catch {
            console.err("Error: \(error.description).\n")
            throw ExitStatus(error.kind)
        }
        console.err("\(store.destPath) now shows \(previous).\n")
    }
}
