import AssetSyncCache
import AssetSyncModel
import AssetSyncSystem

/// `assetsync rollback`: point an atomic DEST back at its previous generation, under the store's lock.
package enum RollbackCommand {
    package static func run(_ arguments: ParsedArguments, context: CommandContext) throws(ExitStatus) {
        let console = context.console
        let dest = arguments.value("--dest") ?? "."
        guard GenerationStore.rememberedMode(dest) != nil else {
            console.err("Error: --dest \(QuotedValue.quote(dest)) is not an atomic cache directory (no pull --atomic made it one), "
                + "so it has no generations to go back to.\n")
            throw .invalidInput
        }
        let store = try AtomicPull.openStore(dest, console: console, checkingFirst: {})
        let lock = try CommandSteps.lock(store.root, arguments, command: "rollback", context: context)
        defer { withExtendedLifetime(lock) {} }
        let previous: String?
        do {
            previous = try store.rollBack()
        } catch {
            console.err("Error: cannot roll \(store.destPath) back: \(error.description).\n")
            throw ExitStatus(error.kind)
        }
        guard let previous else {
            console.err("Error: \(store.destPath) has no generation before the current one to go back to.\n")
            throw .invalidInput
        }
        console.err("\(store.destPath) now shows \(previous).\n")
    }
}
