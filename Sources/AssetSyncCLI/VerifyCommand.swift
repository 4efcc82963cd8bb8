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
        var request = CommandSteps.request(arguments, options: options, context: context)
        switch Waits.parse(arguments, environment: context.environment, command: "verify") {
        case .success(let waits): request.lockWait = waits.lockWait
        case .failure(let error): throw CommandLineTool.usageFailure(error, console: console)
        }
        let started = context.clock()
        let verified: VerifyResult
        do {
            verified = try AssetSync.verify(request, in: context.effects)
        } catch {
            throw context.failures(command: "verify", json: arguments.flags.contains("--json")).status(of: error)
        }
        let (manifest, verdicts) = (verified.manifest, verified.verdicts)
        let seconds = context.clock() - started
        var missing = 0
        var corrupt = 0
        var unreadable = 0
        var bytes: Int64 = 0
        let json = arguments.flags.contains("--json")
        for (entry, verdict) in zip(manifest.entries, verdicts) {
            let path = QuotedValue.displayPath(entry.path)
            let problem: (word: String, reason: String?)
            switch verdict {
            case .proven:
                bytes = bytes.addingSaturated(entry.size)
                problem = ("", nil)
            case .missing:
                missing += 1
                problem = ("missing", nil)
            case .notARegularFile:
                corrupt += 1
                problem = ("corrupt", "not a regular file")
            case .wrongSize(let size):
                corrupt += 1
                problem = ("corrupt", "size is \(size) bytes, expected \(entry.size)")
            case .wrongCRC(let crc):
                corrupt += 1
                bytes = bytes.addingSaturated(entry.size)
                problem = ("corrupt", "CRC-32 is \(CRC32Text.hex(crc)), expected \(CRC32Text.hex(entry.crc32))")
            case .wrongSHA256(let digest):
                corrupt += 1
                bytes = bytes.addingSaturated(entry.size)
                problem = ("corrupt", "SHA-256 is \(digest.hex), expected \(entry.sha256?.hex ?? "none")")
            case .unreadable(let error):
                unreadable += 1
                problem = ("error", error.message)
            }
            if !problem.word.isEmpty {
                let padded = problem.word + String(repeating: " ", count: max(1, 9 - problem.word.count))
                console.err(padded + path + (problem.reason.map { ": " + $0 } ?? "") + "\n")
            }
            if json {
                var line = JSONLine(type: problem.word.isEmpty ? "done" : "failed")
                line.add("path", entry.path)
                line.add("size", entry.size)
                if problem.word.isEmpty {
                    line.add("action", "verified")
                } else {
                    line.add("reason", problem.reason.map { problem.word + ": " + $0 } ?? problem.word)
                }
                console.out(line.line)
            }
        }
        let good = manifest.entries.count - missing - corrupt - unreadable
        let rate = seconds > 0 ? " (\(ByteCount.human(Int64(Double(bytes) / seconds)))/s)" : ""
        var summary = "Verified \(manifest.entries.count) files: \(good) good, \(missing) missing, \(corrupt) corrupt"
        if unreadable > 0 { summary += ", \(unreadable) unreadable" }
        summary += "; read \(ByteCount.human(bytes)) in \(ElapsedTime.format(seconds))\(rate).\n"
        if missing + corrupt > 0 { summary += "Run 'assetsync verify --repair' (or 'assetsync pull') to download them again.\n" }
        console.err(summary)
        let status: ExitStatus = unreadable > 0 ? .localIOFailure : missing + corrupt > 0 ? .someFilesFailed : .success
        if json {
            var line = JSONLine(type: "summary")
            line.add("good", good)
            line.add("missing", missing)
            line.add("corrupt", corrupt)
            line.add("unreadable", unreadable)
            line.add("bytes_read", bytes)
            line.add("milliseconds", Int64((seconds * 1000).rounded()))
            line.add("exit_code", Int64(status.rawValue))
            console.out(line.line)
        }
        try console.checkOutput("the JSON events", allowingClosedByReader: true)
        if status != .success { throw status }
    }
}
