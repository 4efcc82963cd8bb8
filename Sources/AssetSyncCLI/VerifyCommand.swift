import AssetSync

/// `assetsync verify`: re-read every file and prove it by its CRC-32; `--repair` downloads
/// what is missing or corrupt through the normal atomic path.
package enum VerifyCommand {
    package static func run(_ arguments: ParsedArguments, context: CommandContext) throws(ExitStatus) {
        if arguments.flags.contains("--repair") {
            var pull = arguments
            pull.flags.remove("--repair")
            pull.flags.insert("--verify")
            return try PullCommand.run(pull, command: "verify", context: context)
        }
        let console = context.console
        let options = try CommandSteps.networkOptions(arguments, command: "verify", context: context)
        var request = try CommandSteps.request(arguments, options: options, command: "verify", context: context)
        switch Waits.parse(arguments, environment: context.environment, command: "verify") {
        case .success(let waits): request.lockWait = waits.lockWait
        case .failure(let error): throw CommandLineTool.usageFailure(error, console: console)
        }
        let json = arguments.flags.contains("--json")
        let reporter = VerifyReporter(console: console, refusals: json ? context.pullReporters(quiet: true, json: true) : nil)
        let started = context.clock()
        do {
            _ = try AssetSync.verify(request, in: context.effects, events: reporter)
        } catch {
            throw context.failures(command: "verify").status(of: error)
        }
        let seconds = context.clock() - started
        let tally = reporter.tally
        let rate = seconds > 0 ? " (\(ByteCount.human(Int64(Double(tally.bytes) / seconds)))/s)" : ""
        var summary = "Verified \(tally.files) files: \(tally.good) good, \(tally.missing) missing, \(tally.corrupt) corrupt"
        if tally.unreadable > 0 { summary += ", \(tally.unreadable) unreadable" }
        summary += "; read \(ByteCount.human(tally.bytes)) in \(ElapsedTime.format(seconds))\(rate).\n"
        if tally.missing + tally.corrupt > 0 { summary += "Run 'assetsync verify --repair' (or 'assetsync pull') to download them again.\n" }
        console.err(summary)
        let status: ExitStatus = tally.unreadable > 0 ? .localIOFailure : tally.missing + tally.corrupt > 0 ? .someFilesFailed : .success
        if json {
            var line = JSONLine(type: "summary")
            line.add("good", tally.good)
            line.add("missing", tally.missing)
            line.add("corrupt", tally.corrupt)
            line.add("unreadable", tally.unreadable)
            line.add("bytes_read", tally.bytes)
            line.add("milliseconds", Int64((seconds * 1000).rounded()))
            line.add("exit_code", Int64(status.rawValue))
            console.out(line.line)
        }
        try console.checkOutput("the JSON events", allowingClosedByReader: true)
        if status != .success { throw status }
    }
}
