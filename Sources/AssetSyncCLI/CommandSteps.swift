import AssetSyncManifestIO
package import AssetSyncModel
package import AssetSyncPull
import AssetSyncSystem
package import AssetSyncTransfer

/// Steps every command that reads a manifest starts with. Each reports its own failure on the
/// console and throws the exit status.
package enum CommandSteps {
    /// The bytes of the manifest file at `path`, read once (for a signature, then a parse of the same bytes).
    static func readOnce(_ path: String, displayName: String, console: Console) throws(ExitStatus) -> MemoryFile {
        let read: MemoryFile?
        do {
            read = try MemoryFile.read(path: path, limit: Int(Manifest.sizeLimit))
        } catch {
            console.err("Error: \(QuotedValue.displayPath(displayName)): cannot read the manifest: \(error.reason).\n")
            throw .invalidInput
        }
        guard let read else {
            console.err("Error: \(QuotedValue.displayPath(displayName)): the manifest is larger than the \(ByteCount.human(Manifest.sizeLimit)) limit.\n")
            throw .invalidInput
        }
        return read
    }

    /// The manifest read, or why not told on the console and thrown as the exit status.
    package static func reported(_ loaded: Result<Manifest, ManifestError>, console: Console) throws(ExitStatus) -> Manifest {
        switch loaded {
        case .success(let manifest):
            return manifest
        case .failure(let error):
            console.err("Error: \(error.worded)\n")
            throw ExitStatus(error.kind)
        }
    }

    /// The network options and tuning variables of a command that makes requests.
    package static func networkOptions(_ arguments: ParsedArguments, command: String, context: CommandContext) throws(ExitStatus) -> TransferOptions {
        do {
            return try NetworkOptions.parse(arguments, environment: context.environment, command: command)
        } catch {
            throw CommandLineTool.usageFailure(error, console: context.console)
        }
    }

    /// Whether the manifest argument is a URL to fetch rather than a path.
    package static func isURL(_ argument: String) -> Bool {
        let lower = argument.lowercased()
        return lower.hasPrefix("http://") || lower.hasPrefix("https://")
    }

    /// The request every command that reads a manifest into DEST makes: the manifest argument ("-" is
    /// standard input), `--dest`, `--trusted-key` and `--reuse-from`, fetched with `options`.
    package static func request(_ arguments: ParsedArguments, options: TransferOptions, context: CommandContext) -> PullRun.Request {
        let source = arguments.arguments[0]
        let manifest: PullRun.ManifestSource =
            source == "-" ? .descriptor(context.input, name: "<stdin>") : isURL(source) ? .url(source) : .path(source)
        var request = PullRun.Request(manifest: manifest, dest: arguments.value("--dest") ?? ".")
        request.trustedKeyFiles = arguments.values["--trusted-key"] ?? []
        request.reuseFrom = arguments.values["--reuse-from"] ?? []
        request.options = options
        return request
    }
}
