import AssetSyncCache
import AssetSyncModel
package import AssetSyncPull
import AssetSyncSystem
package import AssetSyncTransfer

/// `assetsync pull`: make the cache match the manifest, every file proven by its CRC-32.
package enum PullCommand {
    /// - Parameter command: the command the user typed: `verify --repair` runs a pull too.
    package static func run(_ arguments: ParsedArguments, command: String = "pull", context: CommandContext) throws(ExitStatus) {
        guard let path = arguments.value("--metrics-file"), !arguments.flags.contains("--dry-run") else {
            return try pull(arguments, command: command, context: context, metrics: nil)
        }
        let metrics = MetricsFile(path: path, dest: arguments.value("--dest") ?? ".", start: MetricsFile.now())
        var status = ExitStatus.success
        do {
            try pull(arguments, command: command, context: context, metrics: metrics)
        } catch {
            status = error
        }
        status = metrics.write(ending: status, console: context.console)
        if status != .success { throw status }
    }

    private static func pull(
        _ arguments: ParsedArguments, command: String, context: CommandContext, metrics: MetricsFile?
    ) throws(ExitStatus) {
        let console = context.console
        let options: TransferOptions
        let waits: Waits
        switch (
            transferOptions(arguments, environment: context.environment, command: command),
            Waits.parse(arguments, environment: context.environment, command: command)
        ) {
        case (.success(let parsed), .success(let parsedWaits)):
            options = parsed
            waits = parsedWaits
        case (.failure(let error), _), (_, .failure(let error)):
            throw CommandLineTool.usageFailure(error, console: console)
        }
        if arguments.flags.contains("--dry-run") { return try PlanCommand.run(arguments, context: context) }
        let source = arguments.arguments[0]
        let trust = try ManifestTrust.parse(arguments, command: command, console: console)
        // With --trusted-key, a local manifest's signature is checked before anything else happens.
        let admitted = CommandSteps.isURL(source) ? nil : try trust?.admit(localManifest: source)
        // A local manifest is read while the cache directory is opened, locked and walked. A bad one
        // is still the error told, ahead of any about the cache, and the run leaves nothing it made.
        // A remote one is fetched (after the splay) into the locked cache directory.
        let input = context.input
        let local = CommandSteps.isURL(source) ? nil : BackgroundWork {
            admitted.map { .success($0.manifest) } ?? CommandSteps.loadManifest(source, input: input)
        }
        let badManifestFirst = { () throws(ExitStatus) in if let local { _ = try CommandSteps.reported(local.value(), console: console) } }
        // In atomic mode, the published generation is walked while the manifest is read: the store's
        // lock waits for a valid manifest, and the next generation is made from that one.
        let early = local == nil ? nil : AtomicPull.earlyWalk(arguments)
        let atomic = try AtomicPull.open(arguments, command: command, context: context, checkingFirst: badManifestFirst)
        let root: CacheRoot
        if let atomic {
            root = try atomic.build(console: console)
        } else {
            root = try CommandSteps.openCache(arguments, console: console, checkingFirst: badManifestFirst)
        }
        let lock = try CommandSteps.lock(root, arguments, command: command, context: context, checkingFirst: badManifestFirst)
        defer { withExtendedLifetime((lock, atomic)) {} }
        if waits.splay > 0, Splay.wait(upTo: waits.splay, stop: context.stop, clock: context.clock) { throw .interrupted }
        let walk = local.map { _ in atomic?.walk(of: root, early: early) ?? CacheWalk(root) }
        let manifest: Manifest
        if let local {
            do {
                manifest = try CommandSteps.reported(local.value(), console: console)
                if let trust, let admitted { try trust.acceptVersion(of: admitted, root: root, manifest: source) }
            } catch {
                root.forgetWhatThisRunCreated()
                throw error
            }
        } else if let trust {
            manifest = try trust.accept(remoteManifest: source, root: root, options: options, context: context)
        } else {
            manifest = try CommandSteps.fetchManifest(source, cache: root, options: options, context: context)
        }
        let reuseFrom = (atomic?.store.reuseSources() ?? []) + (try CommandSteps.reuseFromSources(arguments, command: command, console: console))
        let reporter = context.pullReporters(quiet: arguments.flags.contains("--quiet"), json: arguments.flags.contains("--json"))
        let started = context.clock()
        let outcome: PullSession.Outcome
        do {
            outcome = try PullSession(manifest: manifest, root: root, options: options, events: reporter, stop: context.stop,
                clock: context.clock, reuseFrom: reuseFrom)
                .run(verifyAll: arguments.flags.contains("--verify"), deleteUpTo: waits.deleteUpTo, walk: walk, index: atomic?.store.buildIndex)
        } catch {
            switch error {
            case .scan, .readState, .state:
                console.err("Error: \(error.message).\n")
            case .notEnoughSpace(let shortfall):
                console.err(
                    "Error: not enough free space in \(root.path): the pull needs \(ByteCount.human(shortfall.needed)) "
                        + "(\(ByteCount.human(shortfall.toDownload)) to download and a margin of \(ByteCount.human(shortfall.margin))), "
                        + "but \(ByteCount.human(shortfall.free)) is free. Nothing was downloaded; free some space and run again.\n")
            case .deleteInUnmanagedDirectory:
                root.forgetWhatThisRunCreated()
                console.err(
                    "Error: --delete removes nothing from \(root.path): no earlier pull completed there (it has no "
                        + ".assetsync/state), so it may not be a directory assetsync manages. Pull once without --delete first.\n")
            case .tooManyDeletions(let count, let maximum):
                console.err(
                    "Error: --delete would remove \(count) files, more than --max-delete \(maximum); nothing was changed. "
                        + "Check that this is the right manifest, or pass --max-delete \(count).\n")
            }
            throw ExitStatus(error.kind)
        }
        metrics?.count(outcome)
        var status = Self.status(of: outcome)
        if let atomic, status == .success {
            do { try atomic.publish(root, console: console) } catch { status = error }
        }
        reporter.summarize(outcome, seconds: context.clock() - started, exitCode: status.rawValue)
        // The events only accompany the work: a reader that closed stdout stopped them, not the pull.
        if status != .interrupted { try console.checkOutput("the JSON events", allowingClosedByReader: true) }
        if status != .success { throw status }
    }

    /// The exit status a finished pull earns: interrupted, then local failures, then others.
    package static func status(of outcome: PullSession.Outcome) -> ExitStatus {
        if outcome.interrupted { return .interrupted }
        let failures = outcome.results.compactMap { result -> Failure? in
            if case .failed(let failure) = result.outcome { return failure }
            return nil
        }
        if outcome.stoppedByLocalError || failures.contains(where: \.isLocal) || !outcome.deletion.failures.isEmpty {
            return .localIOFailure
        }
        return failures.isEmpty ? .success : .someFilesFailed
    }

    package static let jobs = NumericSetting(source: .option("--jobs"), kind: .whole, range: 1...64)
    package static let retries = NumericSetting(source: .option("--retries"), kind: .whole, range: 0...100)
    package static let limitRate = NumericSetting(source: .option("--limit-rate"), kind: .byteRate, range: 1...Double(1 << 40))

    /// The transfer options: the network options every requesting command takes, and pull's own.
    package static func transferOptions(
        _ arguments: ParsedArguments, environment: [String: String], command: String
    ) -> Result<TransferOptions, UsageError> {
        do throws(UsageError) {
            var options = try NetworkOptions.parse(arguments, environment: environment, command: command)
            if let count = try jobs.value(in: arguments, environment: environment, command: command) { options.jobs = Int(count) }
            if let count = try retries.value(in: arguments, environment: environment, command: command) { options.retries = Int(count) }
            if let rate = try limitRate.value(in: arguments, environment: environment, command: command) { options.limitRate = Int64(rate.rounded()) }
            return .success(options)
        } catch {
            return .failure(error)
        }
    }
}

/// How long a pull may wait (for another run's lock, before its first request) and how much
/// `--delete` may remove.
package struct Waits {
    package var lockWait = 0.0
    package var splay = 0.0
    /// With `--delete`: the most files it may remove (`--max-delete`).
    package var deleteUpTo: Int?

    package static let maxDeleteOption = NumericSetting(source: .option("--max-delete"), kind: .whole, range: 0...1_000_000_000)
    package static let lockWaitOption = NumericSetting(source: .option("--lock-wait"), kind: .decimal, range: 0...86_400, unit: "seconds")
    package static let splayOption = NumericSetting(source: .option("--splay"), kind: .decimal, range: 0...86_400, unit: "seconds")

    package static func parse(_ arguments: ParsedArguments, environment: [String: String], command: String) -> Result<Waits, UsageError> {
        var waits = Waits()
        do throws(UsageError) {
            if arguments.flags.contains("--delete") {
                let maximum = try maxDeleteOption.value(in: arguments, environment: environment, command: command)
                waits.deleteUpTo = Int(maximum ?? Double(ExtraRemoval.defaultMaximum))
            } else if arguments.value("--max-delete") != nil {
                throw UsageError(message: "'--max-delete' goes with '--delete'", command: command)
            }
            waits.lockWait = try lockWaitOption.value(in: arguments, environment: environment, command: command) ?? 0
            waits.splay = try splayOption.value(in: arguments, environment: environment, command: command) ?? 0
        } catch {
            return .failure(error)
        }
        return .success(waits)
    }
}
