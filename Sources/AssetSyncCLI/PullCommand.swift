package import AssetSync

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
        var request = try CommandSteps.request(arguments, options: options, command: command, context: context)
        do throws(UsageError) {
            let (atomic, plain) = (arguments.flags.contains("--atomic"), arguments.flags.contains("--no-atomic"))
            if atomic, plain { throw UsageError(message: "'--atomic' and '--no-atomic' exclude each other", command: command) }
            request.layout = atomic ? .atomic : plain ? .plain : .asBefore
            request.keep = try keepOption.value(in: arguments, environment: context.environment, command: command).map { Int($0) }
        } catch {
            throw CommandLineTool.usageFailure(error, console: console)
        }
        request.verifyAll = arguments.flags.contains("--verify")
        request.deleteUpTo = waits.deleteUpTo
        request.lockWait = waits.lockWait
        request.splay = waits.splay
        let reporter = context.pullReporters(quiet: arguments.flags.contains("--quiet"), json: arguments.flags.contains("--json"))
        let pulled: PullResult
        do {
            pulled = try AssetSync.pull(request, in: context.effects, events: reporter)
        } catch {
            throw context.failures(command: command).status(of: error)
        }
        metrics?.count(pulled.outcome)
        var status = Self.status(of: pulled.outcome)
        if let failure = pulled.publishFailure {
            console.err("Error: \(failure.messageWithRemedy).\n")
            status = ExitStatus(failure.kind)
        }
        reporter.summarize(pulled.outcome, seconds: pulled.seconds, exitCode: status.rawValue)
        // The events only accompany the work: a reader that closed stdout stopped them, not the pull.
        if status != .interrupted { try console.checkOutput("the JSON events", allowingClosedByReader: true) }
        if status != .success { throw status }
    }

    /// The exit status a finished pull earns: interrupted, then local failures, then others.
    package static func status(of outcome: PullOutcome) -> ExitStatus {
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
    package static let keepOption = NumericSetting(source: .option("--keep"), kind: .whole, range: 1...1000)
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
                waits.deleteUpTo = Int(maximum ?? Double(SyncRequest.defaultDeleteMaximum))
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
