import AssetSync
import Glibc

/// `assetsync pull`: make the cache match the manifest, every file proven by its CRC-32.
enum PullCommand {
    static func run(_ arguments: ParsedArguments, console: Console) throws(ExitStatus) {
        if arguments.flags.contains("--dry-run") { return try PlanCommand.run(arguments, console: console) }
        let options: TransferOptions
        switch transferOptions(arguments) {
        case .success(let parsed): options = parsed
        case .failure(let error): throw CommandLineTool.usageFailure(error, console: console)
        }
        let manifest = try CommandSteps.readManifest(arguments.arguments[0], console: console)
        let rootPath = try CommandSteps.resolveDest(arguments, console: console)
        let root: CacheRoot
        do {
            root = try CacheRoot(resolvedPath: rootPath)
        } catch {
            console.err("Error: cannot open the cache directory: \(error). Check that it is writable.\n")
            throw .localIOFailure
        }
        let reporter = PlainPullReporter(console: console, quiet: arguments.flags.contains("--quiet"))
        let started = MonotonicClock.now()
        let outcome: PullSession.Outcome
        do {
            outcome = try PullSession(manifest: manifest, root: root, options: options, reporter: reporter)
                .run(verifyAll: arguments.flags.contains("--verify"))
        } catch {
            console.err("Error: cannot scan the cache directory: \(error). Check its permissions, or run as its owner.\n")
            throw .localIOFailure
        }
        reporter.summarize(outcome, seconds: MonotonicClock.now() - started)
        if outcome.interrupted { throw .interrupted }
        let failures = outcome.results.compactMap { result -> Failure? in
            if case .failed(let failure) = result.outcome { return failure }
            return nil
        }
        if outcome.stoppedByLocalError || failures.contains(where: \.isLocal) { throw .localIOFailure }
        if !failures.isEmpty { throw .someFilesFailed }
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
