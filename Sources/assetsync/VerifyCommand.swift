import AssetSync

/// `assetsync verify`: re-read every file and prove it by its CRC-32; `--repair` downloads
/// what is missing or corrupt through the normal atomic path.
enum VerifyCommand {
    static func run(_ arguments: ParsedArguments, console: Console) throws(ExitStatus) {
        if arguments.flags.contains("--repair") {
            var pull = arguments
            pull.flags.remove("--repair")
            pull.flags.insert("--verify")
            return try PullCommand.run(pull, console: console)
        }
        let source = arguments.arguments[0]
        let local = CommandSteps.isURL(source) ? nil : try CommandSteps.readManifest(source, console: console)
        let root = try CommandSteps.openCache(arguments, console: console)
        let lock = try CommandSteps.lock(root, arguments, console: console)
        defer { withExtendedLifetime(lock) {} }
        let manifest: Manifest
        if let local { manifest = local } else {
            manifest = try CommandSteps.fetchManifest(source, cache: root, options: TransferOptions(), console: console)
        }
        let started = MonotonicClock.now()
        let verdicts: [ContentCheck.Verdict]
        do {
            verdicts = try Verification.run(manifest: manifest, root: root)
        } catch {
            console.err("Error: cannot write the state index: \(error). Check free space and permissions.\n")
            throw .localIOFailure
        }
        let seconds = MonotonicClock.now() - started
        var missing = 0
        var corrupt = 0
        var unreadable = 0
        var bytes: Int64 = 0
        for (entry, verdict) in zip(manifest.entries, verdicts) {
            let path = QuotedValue.displayPath(entry.path)
            switch verdict {
            case .proven:
                bytes += entry.size
                continue
            case .missing:
                missing += 1
                console.err("missing  \(path)\n")
            case .notARegularFile:
                corrupt += 1
                console.err("corrupt  \(path): not a regular file\n")
            case .wrongSize(let size):
                corrupt += 1
                console.err("corrupt  \(path): size is \(size) bytes, expected \(entry.size)\n")
            case .wrongCRC(let crc):
                corrupt += 1
                bytes += entry.size
                console.err("corrupt  \(path): CRC-32 is \(CRC32Text.hex(crc)), expected \(CRC32Text.hex(entry.crc32))\n")
            case .unreadable(let error):
                unreadable += 1
                console.err("error    \(path): \(error)\n")
            }
        }
        let good = manifest.entries.count - missing - corrupt - unreadable
        let rate = seconds > 0 ? " (\(ByteCount.human(Int64(Double(bytes) / seconds)))/s)" : ""
        var summary = "Verified \(manifest.entries.count) files: \(good) good, \(missing) missing, \(corrupt) corrupt"
        if unreadable > 0 { summary += ", \(unreadable) unreadable" }
        summary += "; read \(ByteCount.human(bytes)) in \(ElapsedTime.format(seconds))\(rate).\n"
        if missing + corrupt > 0 { summary += "Run 'assetsync verify --repair' (or 'assetsync pull') to download them again.\n" }
        console.err(summary)
        if unreadable > 0 { throw .localIOFailure }
        if missing + corrupt > 0 { throw .someFilesFailed }
    }
}
