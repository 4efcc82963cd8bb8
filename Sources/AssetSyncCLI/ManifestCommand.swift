import AssetSync

/// `assetsync manifest`: describe a directory as a manifest, for the publishing side.
package enum ManifestCommand {
    package static func run(_ arguments: ParsedArguments, context: CommandContext) throws(ExitStatus) {
        let console = context.console
        let directory = arguments.arguments[0]
        guard let base = arguments.value("--base") else {
            throw CommandLineTool.usageFailure(
                UsageError(message: "Missing '--base <url>': each file is fetched at base + its path", command: "manifest"),
                console: console)
        }
        let formatText = arguments.value("--format") ?? "xml"
        let formats: [String: AssetSync.ManifestFormat] = ["xml": .xml, "json": .json, "meta4": .metalink]
        guard let format = formats[formatText] else {
            throw CommandLineTool.usageFailure(
                UsageError(message: "'--format' must be xml, json or meta4, not '\(formatText)'", command: "manifest"), console: console)
        }
        if format == .metalink, arguments.flags.contains("--chunks") {
            throw CommandLineTool.usageFailure(
                UsageError(message: "'--chunks' has no place in a Metalink: write them in an xml or json manifest", command: "manifest"),
                console: console)
        }
        let signing = try signing(arguments, console: console)
        let report = PublishFailureReport(console: console, command: "manifest")
        let described: (manifest: Manifest, text: String)
        do {
            described = try AssetSync.describe(
                directory: directory, base: base, withSHA256: arguments.flags.contains("--sha256"), chunks: arguments.flags.contains("--chunks"),
                format: format)
        } catch {
            throw report.status(of: error)
        }
        guard let output = arguments.value("--output") else {
            console.out(described.text)
            return try console.checkOutput("the manifest", allowingClosedByReader: false)
        }
        do { try AssetSync.write(described.text, to: output) } catch { throw report.status(of: error) }
        console.err("Wrote \(output): \(described.manifest.entries.count) files, \(ByteCount.human(described.manifest.totalBytes)).\n")
        try signing?.sign(text: described.text, of: output, console: console)
    }

    /// The signing `--sign` asks for (with `--version` and `--expires`), or nil without it.
    private static func signing(_ arguments: ParsedArguments, console: Console) throws(ExitStatus) -> ManifestSigning? {
        guard let keyPath = arguments.value("--sign") else {
            if let option = ManifestSigning.valueOptions.keys.sorted().first(where: { arguments.value($0) != nil }) {
                throw CommandLineTool.usageFailure(UsageError(message: "'\(option)' goes with '--sign'", command: "manifest"), console: console)
            }
            return nil
        }
        guard arguments.value("--output") != nil else {
            throw CommandLineTool.usageFailure(
                UsageError(message: "'--sign' goes with '--output <file>': the signature is written beside it", command: "manifest"),
                console: console)
        }
        return try ManifestSigning.parse(arguments, keyPath: keyPath, command: "manifest", console: console)
    }
}
