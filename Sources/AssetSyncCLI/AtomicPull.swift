package import AssetSyncCache
import AssetSyncModel
package import AssetSyncPull
import AssetSyncSystem

/// A pull in atomic mode (`--atomic`, or remembered by DEST's generation store): it holds the store's
/// lock for the whole run, builds the next generation, and publishes it only when every file is proven.
package struct AtomicPull {
    let store: GenerationStore
    /// The store's lock: the one every run on DEST takes, whichever generation it works in.
    let lock: CacheLock
    /// DEST's own lock while DEST is still a plain directory that this pull makes the first generation:
    /// a plain run that started before the mode was recorded finishes first, and nothing writes the
    /// partial downloads that move into the new generation.
    let plainLock: CacheLock?
    let keep: Int

    package static let keepOption = NumericSetting(source: .option("--keep"), kind: .whole, range: 1...1000)

    /// The atomic pull to run, or nil for a plain one. `--no-atomic` first makes an atomic DEST plain
    /// again (every file of its current generation kept), then the pull goes on plainly.
    package static func open(
        _ arguments: ParsedArguments, command: String, context: CommandContext, checkingFirst: () throws(ExitStatus) -> Void
    ) throws(ExitStatus) -> AtomicPull? {
        let console = context.console
        let dest = arguments.value("--dest") ?? "."
        let remembered = GenerationStore.rememberedMode(dest)
        let requested: Double?
        do throws(UsageError) {
            requested = try keepOption.value(in: arguments, environment: context.environment, command: command)
            if arguments.flags.contains("--atomic"), arguments.flags.contains("--no-atomic") {
                throw UsageError(message: "'--atomic' and '--no-atomic' exclude each other", command: command)
            }
            if requested != nil, arguments.flags.contains("--no-atomic") || (remembered == nil && !arguments.flags.contains("--atomic")) {
                throw UsageError(message: "'--keep' goes with '--atomic'", command: command)
            }
        } catch {
            throw CommandLineTool.usageFailure(error, console: console)
        }
        let atomic = arguments.flags.contains("--atomic") || (remembered != nil && !arguments.flags.contains("--no-atomic"))
        if remembered == nil, !atomic { return nil }
        // The store and the next generation are made only for a manifest that can be pulled.
        try checkingFirst()
        let store = try openStore(dest, console: console, checkingFirst: checkingFirst)
        let lock = try CommandSteps.lock(store.root, arguments, command: command, context: context, checkingFirst: checkingFirst)
        let keep = requested.map { Int($0) } ?? remembered?.keep ?? GenerationStore.defaultKeep
        let plainLock = atomic && store.destIsPlain
            ? try CommandSteps.lock(
                try CommandSteps.openCache(arguments, console: console, checkingFirst: checkingFirst), arguments, command: command, context: context,
                checkingFirst: checkingFirst)
            : nil
        do {
            guard atomic else {
                try store.makePlain()
                return nil
            }
            if keep != remembered?.keep { try store.remember(GenerationStore.Mode(keep: keep, clonesFiles: remembered?.clonesFiles ?? false)) }
        } catch {
            console.err("Error: cannot \(atomic ? "record the atomic mode of" : "make a plain directory of") \(store.destPath): \(error.description).\n")
            throw ExitStatus(error.kind)
        }
        return AtomicPull(store: store, lock: lock, plainLock: plainLock, keep: keep)
    }

    /// A walk of the generation the next one will most likely be made of with its names and inodes
    /// (`GenerationStore.generationToWalkEarly`), started before the lock is held and the manifest
    /// read, when the pull will be atomic; see `walk`.
    package static func earlyWalk(_ arguments: ParsedArguments) -> (generation: String, walk: CacheWalk)? {
        let dest = arguments.value("--dest") ?? "."
        guard !arguments.flags.contains("--no-atomic"), let generation = GenerationStore.generationToWalkEarly(of: dest) else { return nil }
        return (generation.name, CacheWalk(path: generation.path))
    }

    /// The walk of the generation this pull builds: the early walk, when `next/` turned out to have the
    /// names and inodes of the generation it walked (the build was made under the lock, so no run
    /// changed either since); else a walk of `next/`.
    package func walk(of build: CacheRoot, early: (generation: String, walk: CacheWalk)?) -> CacheWalk {
        if let early, store.buildHasInodesOf == early.generation { return early.walk }
        return CacheWalk(build)
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
        let path: String
        do {
            path = try store.prepareBuild(keep: keep)
        } catch {
            console.err("Error: cannot prepare the next generation of \(store.destPath): \(error.description).\n")
            throw ExitStatus(error.kind)
        }
        do {
            return try CacheRoot(resolvedPath: path)
        } catch {
            console.err("Error: cannot open the next generation of \(store.destPath): \(error.messageWithRemedy).\n")
            throw ExitStatus(error.kind)
        }
    }

    /// Publishes the built generation, then removes those beyond `--keep` (a failure there is only told).
    package func publish(_ build: CacheRoot, console: Console) throws(ExitStatus) {
        do {
            _ = try store.publish(build)
        } catch {
            console.err("Error: cannot publish the new generation of \(store.destPath): \(error.description); "
                + "it still shows the one before, and the next pull resumes the new one.\n")
            throw ExitStatus(error.kind)
        }
        do {
            _ = try store.prune(keep: keep)
        } catch {
            console.err("Warning: cannot remove an old generation of \(store.destPath): \(error.description).\n")
        }
    }
}
