import AssetSync
import Glibc

/// `assetsync pull`: make the cache match the manifest, every file proven by its CRC-32.
enum PullCommand {
    static func run(_ arguments: ParsedArguments, console: Console) throws(ExitStatus) {
        if arguments.flags.contains("--dry-run") { return try PlanCommand.run(arguments, console: console) }
        let options: TransferOptions
        let waits: Waits
        switch (transferOptions(arguments), Waits.parse(arguments, command: "pull")) {
        case (.success(let parsed), .success(let parsedWaits)):
            options = parsed
            waits = parsedWaits
        case (.failure(let error), _), (_, .failure(let error)):
            throw CommandLineTool.usageFailure(error, console: console)
        }
        let source = arguments.arguments[0]
        // A local manifest is refused before anything is touched; a remote one is fetched
        // (after the splay) into the locked cache directory.
        let local = CommandSteps.isURL(source) ? nil : try CommandSteps.readManifest(source, console: console)
        let root = try CommandSteps.openCache(arguments, console: console)
        let lock = try CommandSteps.lock(root, arguments, command: "pull", console: console)
        defer { withExtendedLifetime(lock) {} }
        if waits.splay > 0, Splay.wait(upTo: waits.splay) { throw .interrupted }
        let manifest: Manifest
        if let local { manifest = local } else {
            manifest = try CommandSteps.fetchManifest(source, cache: root, options: options, console: console)
        }
        let reporter = console.pullReporters(quiet: arguments.flags.contains("--quiet"), json: arguments.flags.contains("--json"))
        let started = MonotonicClock.now()
        let outcome: PullSession.Outcome
        do {
            outcome = try PullSession(manifest: manifest, root: root, options: options, reporter: reporter)
                .run(verifyAll: arguments.flags.contains("--verify"), deleteUpTo: waits.deleteUpTo)
        } catch {
            switch error {
            case .scan(let error):
                console.err("Error: cannot scan the cache directory: \(error). Check its permissions, or run as its owner.\n")
            case .state(let error):
                console.err("Error: cannot write the state index: \(error). Check free space and permissions.\n")
            case .notEnoughSpace(let shortfall):
                console.err(
                    "Error: not enough free space in \(root.path): the pull needs \(ByteCount.human(shortfall.needed)) "
                        + "(\(ByteCount.human(shortfall.toDownload)) to download and a margin of \(ByteCount.human(shortfall.margin))), "
                        + "but \(ByteCount.human(shortfall.free)) is free. Nothing was downloaded; free some space and run again.\n")
            case .deleteInUnmanagedDirectory:
                root.forgetMetadataCreatedByThisRun()
                console.err(
                    "Error: --delete removes nothing from \(root.path): it had no .assetsync/ from an earlier pull, so it may "
                        + "not be a directory assetsync manages. Pull once without --delete first.\n")
                throw .invalidInput
            case .tooManyDeletions(let count, let maximum):
                console.err(
                    "Error: --delete would remove \(count) files, more than --max-delete \(maximum); nothing was changed. "
                        + "Check that this is the right manifest, or pass --max-delete \(count).\n")
                throw .invalidInput
            }
            throw .localIOFailure
        }
        let status = Self.status(of: outcome)
        reporter.summarize(outcome, seconds: MonotonicClock.now() - started, exitCode: status.rawValue)
        if status != .success { throw status }
    }

    /// The exit status a finished pull earns: interrupted, then local failures, then others.
    static func status(of outcome: PullSession.Outcome) -> ExitStatus {
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

    /// The transfer options from the command line and the tuning environment variables.
    static func transferOptions(_ arguments: ParsedArguments) -> Result<TransferOptions, UsageError> {
        var options = TransferOptions()
        func number(_ option: String, _ range: ClosedRange<Int>) throws(UsageError) -> Int? {
            guard let text = arguments.value(option) else { return nil }
            guard let value = Int(text), range.contains(value) else {
                throw UsageError(
                    message: "'\(option)' must be a whole number from \(range.lowerBound) to \(range.upperBound), not '\(text)'",
                    command: "pull")
            }
            return value
        }
        do throws(UsageError) {
            options.jobs = try number("--jobs", 1...64) ?? options.jobs
            options.retries = try number("--retries", 0...100) ?? options.retries
            options.speedTime = try number("--speed-time", 1...3600) ?? options.speedTime
            if let text = arguments.value("--speed-limit") {
                guard let bytes = text == "0" ? 0 : ByteRate.parse(text) else {
                    throw UsageError(message: "'--speed-limit' must be bytes per second such as 100, 10K or 1M (0: none), not '\(text)'", command: "pull")
                }
                options.speedLimit = bytes
            }
            if let rate = arguments.value("--limit-rate") {
                guard let bytes = ByteRate.parse(rate) else {
                    throw UsageError(message: "'--limit-rate' must be bytes per second such as 500K, 20M or 1G, not '\(rate)'", command: "pull")
                }
                options.limitRate = bytes
            }
            for header in arguments.values["--header"] ?? [] {
                let parts = header.split(separator: ":", maxSplits: 1)
                guard parts.count == 2, !parts[0].isEmpty, !parts[0].contains(" "),
                      !header.contains("\r"), !header.contains("\n")
                else { throw UsageError(message: "'--header' must look like 'Name: value', not '\(header)'", command: "pull") }
                options.headers.append(header)
            }
            for host in arguments.values["--auth-host"] ?? [] {
                guard options.credentialScope.admit(host: host) else {
                    throw UsageError(message: "'--auth-host' must be a host name or address, with an optional :port, not '\(host)'", command: "pull")
                }
            }
            if let source = arguments.arguments.first, CommandSteps.isURL(source) {
                options.credentialScope.admit(originOf: source)
            } else if options.credentialScope.isEmpty, !options.headers.isEmpty || arguments.flags.contains("--netrc") {
                throw UsageError(
                    message: "with a local manifest, '--header' and '--netrc' go only to hosts named with '--auth-host HOST'",
                    command: "pull")
            }
            if let caFile = arguments.value("--cacert") {
                guard access(caFile, R_OK) == 0 else {
                    throw UsageError(message: "'--cacert' file '\(caFile)' cannot be read", command: "pull")
                }
                options.caFile = caFile
            }
        } catch {
            return .failure(error)
        }
        options.useNetrc = arguments.flags.contains("--netrc")
        options.proxy = arguments.value("--proxy")
        if let stall = environmentNumber("ASSETSYNC_STALL_TIMEOUT") { options.stallTimeout = max(1, Int(stall)) }
        if let delay = environmentNumber("ASSETSYNC_RETRY_DELAY") { options.retryBaseDelay = max(0, delay) }
        if let size = environmentNumber("ASSETSYNC_BUFFER_SIZE") { options.bufferSize = max(16 << 10, min(Int(size), 10 << 20)) }
        return .success(options)
    }

    private static func environmentNumber(_ name: String) -> Double? {
        guard let text = getenv(name) else { return nil }
        return Double(String(cString: text))
    }
}

/// How long a pull may wait (for another run's lock, before its first request) and how much
/// `--delete` may remove.
struct Waits {
    var lockWait = 0.0
    var splay = 0.0
    /// With `--delete`: the most files it may remove (`--max-delete`).
    var deleteUpTo: Int?

    static func parse(_ arguments: ParsedArguments, command: String) -> Result<Waits, UsageError> {
        var waits = Waits()
        if arguments.flags.contains("--delete") {
            let text = arguments.value("--max-delete") ?? String(ExtraRemoval.defaultMaximum)
            guard let maximum = Int(text), maximum >= 0 else {
                return .failure(UsageError(message: "'--max-delete' must be a whole number, not '\(text)'", command: command))
            }
            waits.deleteUpTo = maximum
        } else if arguments.value("--max-delete") != nil {
            return .failure(UsageError(message: "'--max-delete' goes with '--delete'", command: command))
        }
        for (option, keyPath) in [("--lock-wait", \Waits.lockWait), ("--splay", \Waits.splay)] {
            guard let text = arguments.value(option) else { continue }
            guard let seconds = Double(text), seconds >= 0, seconds <= 86_400 else {
                return .failure(UsageError(message: "'\(option)' must be seconds from 0 to 86400, not '\(text)'", command: command))
            }
            waits[keyPath: keyPath] = seconds
        }
        return .success(waits)
    }
}

/// Byte rates as people write them: 500K, 20M, 1.5G (powers of 1024), or plain bytes.
enum ByteRate {
    static func parse(_ text: String) -> Int64? {
        let units: [Character: Double] = ["K": 1024, "M": 1024 * 1024, "G": 1024 * 1024 * 1024]
        var digits = Substring(text)
        var multiplier = 1.0
        if let last = digits.last?.uppercased().first, let unit = units[last] {
            multiplier = unit
            digits = digits.dropLast()
        }
        guard let value = Double(digits), value > 0, value.isFinite else { return nil }
        return Int64(value * multiplier)
    }
}
