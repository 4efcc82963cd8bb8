package import AssetSync

/// Steps every command that reads a manifest starts with. Each reports its own failure on the
/// console and throws the exit status.
package enum CommandSteps {
    /// The network options and tuning variables of a command that makes requests.
    package static func networkOptions(_ arguments: ParsedArguments, command: String, context: CommandContext) throws(ExitStatus) -> TransferOptions {
        do {
            return try NetworkOptions.parse(arguments, environment: context.environment, command: command)
        } catch {
            throw CommandLineTool.usageFailure(error, console: context.console)
        }
    }

    /// Whether the manifest argument is a URL to fetch (http, https, or an object store's s3) rather than a path.
    package static func isURL(_ argument: String) -> Bool {
        let lower = argument.lowercased()
        return lower.hasPrefix("http://") || lower.hasPrefix("https://") || URLRules.isObjectStoreURL(lower)
    }

    /// The request every command that reads a manifest into DEST makes: the manifest argument ("-" is
    /// standard input), `--dest`, `--trusted-key`, `--reuse-from` and the S3 store's options,
    /// fetched with `options`.
    package static func request(
        _ arguments: ParsedArguments, options: TransferOptions, command: String, context: CommandContext
    ) throws(ExitStatus) -> SyncRequest {
        let source = arguments.arguments[0]
        let manifest: SyncRequest.ManifestSource =
            source == "-" ? .descriptor(context.input, name: "<stdin>") : isURL(source) ? .url(source) : .path(source)
        var request = SyncRequest(manifest: manifest, dest: arguments.value("--dest") ?? ".")
        request.trustedKeyFiles = arguments.values["--trusted-key"] ?? []
        request.reuseFrom = arguments.values["--reuse-from"] ?? []
        request.options = options
        do {
            request.objectStorage = try NetworkOptions.objectStorage(arguments, environment: context.environment, command: command)
        } catch {
            throw CommandLineTool.usageFailure(error, console: context.console)
        }
        return request
    }
}
