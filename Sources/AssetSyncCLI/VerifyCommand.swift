import AssetSyncManifestIO
import AssetSyncModel
import AssetSyncPull
import AssetSyncSystem

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
        let source = arguments.arguments[0]
        let trust = try ManifestTrust.parse(arguments, command: "verify", console: console)
        let admitted = CommandSteps.isURL(source) ? nil : try trust?.admit(localManifest: source)
        var local = admitted?.manifest
        if local == nil, !CommandSteps.isURL(source) { local = try CommandSteps.readManifest(source, context: context) }
        let root = try CommandSteps.openCache(arguments, console: console)
        let lock = try CommandSteps.lock(root, arguments, command: "verify", context: context)
        defer { withExtendedLifetime(lock) {} }
        let manifest: Manifest
        if let local {
            if let trust, let admitted { try trust.acceptVersion(of: admitted, root: root, manifest: source) }
            manifest = local
        } else if let trust {
            manifest = try trust.accept(remoteManifest: source, root: root, options: options, context: context)
        } else {
            manifest = try CommandSteps.fetchManifest(source, cache: root, options: options, context: context)
        }
        let started = context.clock()
        let read: [ContentCheck.Verdict]?
        do {
            read = try Verification.run(manifest: manifest, root: root, until: context.stop.isRequested)
        } catch {
            console.err("Error: cannot write the state index: \(error). Check free space and permissions.\n")
            throw ExitStatus(error.kind)
        }
        guard let verdicts = read else {
            console.err("Interrupted: nothing was recorded; run 'assetsync verify' again to read every file.\n")
            throw .interrupted
        }
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
                problem = ("error", error.description)
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
