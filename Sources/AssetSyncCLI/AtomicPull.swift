package import AssetSyncCache
import AssetSyncModel
package import AssetSyncPull
import AssetSyncSystem

/// A pull in atomic mode (`--atomic`, or remembered by DEST's generation store), as the command line
/// runs it: `GenerationPull` decides and does the work; this opens the store, takes the locks, and
/// tells on the console what goes wrong, in the order the command reports errors.
package struct AtomicPull {
    let generations: GenerationPull
    /// The store's lock: the one every run on DEST takes, whichever generation it works in.
    let lock: CacheLock
    /// DEST's own lock while DEST is still a plain directory that this pull makes the first generation:
    /// a plain run that started before the mode was recorded finishes first, and nothing writes the
    /// partial downloads that move into the new generation.
    let plainLock: CacheLock?

    package var store: GenerationStore { generations.store }

    package static let keepOption = NumericSetting(source: .option("--keep"), kind: .whole, range: 1...1000)

    /// The atomic pull to run, or nil for a plain one. `--no-atomic` first makes an atomic DEST plain
    /// again (every file of its current generation kept), then the pull goes on plainly.
    package static func open(
        _ arguments: ParsedArguments, command: String, context: CommandContext, checkingFirst: () throws(ExitStatus) -> Void
    ) throws(ExitStatus) -> AtomicPull? {
        let console = context.console
        let dest = arguments.value("--dest") ?? "."
        let (atomic, plain) = (arguments.flags.contains("--atomic"), arguments.flags.contains("--no-atomic"))
        let choice: GenerationPull.Choice
        do throws(UsageError) {
            let requested = try keepOption.value(in: arguments, environment: context.environment, command: command)
            if atomic, plain { throw UsageError(message: "'--atomic' and '--no-atomic' exclude each other", command: command) }
            choice = GenerationPull.Choice(dest: dest, asked: atomic ? .atomic : plain ? .plain : .asBefore, keep: requested.map { Int($0) })
            if requested != nil, plain || (choice.remembered == nil && !atomic) {
                throw UsageError(message: "'--keep' goes with '--atomic'", command: command)
            }
        } catch {
            throw CommandLineTool.usageFailure(error, console: console)
        }
        guard choice.touchesStore else { return nil }
        // The store and the next generation are made only for a manifest that can be pulled.
        try checkingFirst()
        let store = try openStore(dest, console: console, checkingFirst: checkingFirst)
        let lock = try CommandSteps.lock(store.root, arguments, command: command, context: context, checkingFirst: checkingFirst)
        try begin(store, choice: choice, console: console)
        guard choice.atomic else { return nil }
        let plainLock = store.destIsPlain
            ? try CommandSteps.lock(
                try CommandSteps.openCache(arguments, console: console, checkingFirst: checkingFirst), arguments, command: command, context: context,
                checkingFirst: checkingFirst)
            : nil
        return AtomicPull(generations: GenerationPull(store: store, choice: choice), lock: lock, plainLock: plainLock)
    }

    /// `GenerationPull.begin` under the store's lock, its warnings and its failure told.
    static func begin(_ store: GenerationStore, choice: GenerationPull.Choice, console: Console) throws(ExitStatus) {
        do {
            tell(try GenerationPull.begin(store, choice: choice), console: console)
        } catch {
            console.err("Error: \(error.messageWithRemedy).\n")
            throw ExitStatus(error.kind)
        }
    }

    static func tell(_ warnings: [String], console: Console) {
        for warning in warnings { console.err("Warning: \(warning).\n") }
    }

    /// A walk of the generation the next one will most likely be made of (see `GenerationPull.earlyWalk`),
    /// started before the lock is held and the manifest read, unless the pull goes plain.
    package static func earlyWalk(_ arguments: ParsedArguments) -> (generation: String, walk: CacheWalk)? {
        arguments.flags.contains("--no-atomic") ? nil : GenerationPull.earlyWalk(of: arguments.value("--dest") ?? ".")
    }

    /// The walk of the generation this pull builds (see `GenerationPull.walk`).
    package func walk(of build: CacheRoot, early: (generation: String, walk: CacheWalk)?) -> CacheWalk {
        generations.walk(of: build, early: early)
    }

    /// Opens DEST's generation store, or tells why not.
    static func openStore(_ dest: String, console: Console, checkingFirst: () throws(ExitStatus) -> Void) throws(ExitStatus) -> GenerationStore {
        if case .failure(let problem) = GenerationStore.locate(dest) {
            try checkingFirst()
            console.err("Error: --dest \(QuotedValue.quote(dest)): \(problem.message).\n")
            throw ExitStatus(problem.kind)
        }
        do {
            return try GenerationStore(dest: dest)
        } catch {
            try checkingFirst()
            console.err("Error: cannot open the generations of --dest \(QuotedValue.quote(dest)): \(error.messageWithRemedy).\n")
            throw ExitStatus(error.kind)
        }
    }

    /// The generation this pull builds, linked from the current one, opened as the run's cache root.
    package func build(console: Console) throws(ExitStatus) -> CacheRoot {
        do {
            return try generations.build()
        } catch {
            console.err("Error: \(error.messageWithRemedy).\n")
            throw ExitStatus(error.kind)
        }
    }

    /// Publishes the built generation, then removes those beyond `--keep` (a failure there is only told).
    package func publish(_ build: CacheRoot, console: Console) throws(ExitStatus) {
        do {
            Self.tell(try generations.publish(build), console: console)
        } catch {
            console.err("Error: \(error.messageWithRemedy).\n")
            throw ExitStatus(error.kind)
        }
    }
}
