import AssetSync

/// `assetsync manifest`: describe a directory, or a bucket's prefix, as a manifest, for the publishing side.
package enum ManifestCommand {
    package static func run(_ arguments: ParsedArguments, context: CommandContext) throws(ExitStatus) {
        let console = context.console
        let directory = arguments.arguments[0]
        let isBucket = URLRules.isObjectStoreURL(directory)
        if isBucket, arguments.flags.contains("--chunks") {
            throw CommandLineTool.usageFailure(
                UsageError(message: "'--chunks' needs a directory: a bucket's objects are described without reading them", command: "manifest"),
                console: console)
        }
        guard let base = arguments.value("--base") ?? (isBucket ? directory : nil) else {
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
        let network: (options: TransferOptions, storage: ObjectStorageRequest)?
        do throws(UsageError) {
            network = isBucket
                ? (try NetworkOptions.parse(arguments, environment: context.environment, command: "manifest"),
                   try NetworkOptions.objectStorage(arguments, environment: context.environment, command: "manifest"))
                : nil
        } catch {
            throw CommandLineTool.usageFailure(error, console: console)
        }
        let described: (manifest: Manifest, text: String)
        do {
            described = if let network {
                try bucket(directory, base: arguments.value("--base"), network: network, arguments: arguments, format: format, context: context)
            } else {
                try AssetSync.describe(
                    directory: directory, base: base, withSHA256: arguments.flags.contains("--sha256"),
                    chunks: arguments.flags.contains("--chunks"), format: format)
            }
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

    /// The bucket's prefix at `location` described with the network and S3 options, and how,
    /// told on standard error.
    private static func bucket(
        _ location: String, base: String?, network: (options: TransferOptions, storage: ObjectStorageRequest), arguments: ParsedArguments,
        format: AssetSync.ManifestFormat, context: CommandContext
    ) throws(PublishFailure) -> (manifest: Manifest, text: String) {
        let described = try AssetSync.describe(
            bucket: location, base: base, withSHA256: arguments.flags.contains("--sha256"), format: format, options: network.options,
            objectStorage: network.storage, stop: context.effects.stop, temporaryDirectory: context.effects.temporaryDirectory)
        let tally = described.tally
        var how = "\(tally.storedCRC32) by the CRC-32 the store keeps, \(tally.hashed) streamed and hashed"
        var why: [String] = []
        if tally.multipart > 0 { why.append("\(tally.multipart) multipart, whose stored checksum is of their parts") }
        if tally.unanswered > 0 {
            why.append("\(tally.unanswered) whose attributes the store did not give: \(tally.unansweredReason ?? "no answer")")
        }
        if !why.isEmpty { how += " (" + why.joined(separator: "; ") + ")" }
        if tally.folders > 0 { how += "; \(tally.folders) folder markers left out" }
        context.console.err("Described \(described.manifest.entries.count) objects under \(location): \(how).\n")
        return (described.manifest, described.text)
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
