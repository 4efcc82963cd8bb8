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
    /// The mode to record just before the first publish, when this pull makes DEST atomic: a switch
    /// that fails (a file that cannot be had, a build that cannot be made) records nothing.
    let modeToRecord: GenerationStore.Mode?

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
        // A switch back to plain that a kill cut short is finished first, whatever this run asks.
        let atomic = arguments.flags.contains("--atomic")
            || ((remembered.map { !$0.leaving } ?? false) && !arguments.flags.contains("--no-atomic"))
        if remembered == nil, !atomic { return nil }
        // The store and the next generation are made only for a manifest that can be pulled.
        try checkingFirst()
        let store = try openStore(dest, console: console, checkingFirst: checkingFirst)
        let lock = try CommandSteps.lock(store.root, arguments, command: command, context: context, checkingFirst: checkingFirst)
        try finishInterruptedSteps(of: store, console: console)
        let keep = requested.map { Int($0) } ?? remembered?.keep ?? GenerationStore.defaultKeep
        do {
            if !atomic || remembered?.leaving == true { try store.makePlain() }
        } catch {
            console.err("Error: cannot make a plain directory of \(store.destPath): \(error.description).\n")
            throw ExitStatus(error.kind)
        }
        guard atomic else { return nil }
        let plainLock = store.destIsPlain
            ? try CommandSteps.lock(
                try CommandSteps.openCache(arguments, console: console, checkingFirst: checkingFirst), arguments, command: command, context: context,
                checkingFirst: checkingFirst)
            : nil
        let switching = remembered == nil || remembered?.leaving == true
        let mode = GenerationStore.Mode(keep: keep, clonesFiles: remembered?.clonesFiles ?? false)
        if !switching, keep != remembered?.keep {
            do {
                try store.remember(mode)
            } catch {
                console.err("Error: cannot record the atomic mode of \(store.destPath): \(error.description).\n")
                throw ExitStatus(error.kind)
            }
        }
        return AtomicPull(store: store, lock: lock, plainLock: plainLock, keep: keep, modeToRecord: switching ? mode : nil)
    }

    /// Finishes what a run killed under the store's lock left (see `GenerationStore.finishInterruptedSteps`).
    static func finishInterruptedSteps(of store: GenerationStore, console: Console) throws(ExitStatus) {
        do {
            try store.finishInterruptedSteps()
        } catch {
            console.err("Error: cannot finish what an interrupted run left in \(store.root.path): \(error.description).\n")
            throw ExitStatus(error.kind)
        }
        warnOfWhatStaysRetired(store, console: console)
    }

    /// Tells of what DEST's old plain tree still holds, which no step removes.
    static func warnOfWhatStaysRetired(_ store: GenerationStore, console: Console) {
        if let failure = store.retirementFailure {
            console.err("Warning: DEST's old tree stays in \(store.retiredPath) (\(failure.description)); the next run carries it into "
                + "\(store.destPath) again.\n")
        }
        for path in store.notCarried {
            console.err("Warning: \(QuotedValue.quote(store.retiredPath + "/" + path)) was in \(store.destPath) before it became atomic, "
                + "and \(store.destPath) now holds \(QuotedValue.quote(path)) as another kind of file; it was kept there: move it where you want it.\n")
        }
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
    /// changed either since) and the walk saw all of it; else a walk of `next/`.
    package func walk(of build: CacheRoot, early: (generation: String, walk: CacheWalk)?) -> CacheWalk {
        if let early, store.buildHasInodesOf == early.generation { return CacheWalk(early.walk, otherwise: build) }
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
        do {
            _ = try store.prepareBuild(keep: keep)
        } catch {
            console.err("Error: cannot prepare the next generation of \(store.destPath): \(error.description).\n")
            throw ExitStatus(error.kind)
        }
        do {
            return try store.openBuild()
        } catch {
            console.err("Error: cannot open the next generation of \(store.destPath): \(error.messageWithRemedy).\n")
            throw ExitStatus(error.kind)
        }
    }

    /// Publishes the built generation, then removes those beyond `--keep` (a failure there is only told).
    package func publish(_ build: CacheRoot, console: Console) throws(ExitStatus) {
        do {
            if let modeToRecord { try store.remember(modeToRecord) }
        } catch {
            console.err("Error: cannot record the atomic mode of \(store.destPath): \(error.description); "
                + "it still shows the one before, and the next pull resumes the new one.\n")
            throw ExitStatus(error.kind)
        }
        do {
            _ = try store.publish(build)
            Self.warnOfWhatStaysRetired(store, console: console)
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
