import AssetSync
import Glibc

/// The options of every command that makes a request (`pull`, `plan` and `verify`, for a manifest
/// URL or a repair), and the tuning environment variables, read into `TransferOptions` by one
/// parser. A new network option is added here once: its spec entry, its help line and its parsing.
enum NetworkOptions {
    static let valueOptions = ["--header": "<header>", "--cacert": "<file>", "--proxy": "<url>"]
    static let flags = ["--netrc"]
    static let repeatable: Set<String> = ["--header"]
    static let usage = "[--header <header> ...] [--netrc] [--cacert <file>] [--proxy <url>]"
    /// The lines of the OPTIONS section of each command's help.
    static let help = """
          --header <header>       An extra request header, 'Name: value'; may be repeated.
                                  Never sent to another host after a redirect.
          --netrc                 Take credentials from ~/.netrc.
          --cacert <file>         Trust the CA certificates in this PEM file, besides the system's.
          --proxy <url>           Use this proxy. (default: the http_proxy, https_proxy and
                                  no_proxy environment variables)
        """

    /// The tuning variables, for tests and benchmarks (README, "Tuning").
    static let stallTimeout = NumericSetting(source: .environment("ASSETSYNC_STALL_TIMEOUT"), kind: .whole, range: 1...86_400, unit: "seconds")
    static let retryDelay = NumericSetting(source: .environment("ASSETSYNC_RETRY_DELAY"), kind: .decimal, range: 0...3_600, unit: "seconds")
    static let bufferSize = NumericSetting(
        source: .environment("ASSETSYNC_BUFFER_SIZE"), kind: .whole, range: 16_384...10_485_760, unit: "bytes")

    /// The transfer options these options and variables give; a bad value is a usage error of `command`.
    static func parse(_ arguments: ParsedArguments, command: String) throws(UsageError) -> TransferOptions {
        var options = TransferOptions()
        for header in arguments.values["--header"] ?? [] {
            let parts = header.split(separator: ":", maxSplits: 1)
            guard parts.count == 2, !parts[0].isEmpty, !parts[0].contains(" "),
                  !header.contains("\r"), !header.contains("\n")
            else { throw UsageError(message: "'--header' must look like 'Name: value', not \(QuotedValue.quote(header))", command: command) }
            options.headers.append(header)
        }
        if let caFile = arguments.value("--cacert") {
            guard access(caFile, R_OK) == 0 else {
                throw UsageError(message: "'--cacert' file \(QuotedValue.quote(caFile)) cannot be read", command: command)
            }
            options.caFile = caFile
        }
        options.useNetrc = arguments.flags.contains("--netrc")
        options.proxy = arguments.value("--proxy")
        if let seconds = try stallTimeout.value(in: arguments, command: command) { options.stallTimeout = Int(seconds) }
        if let seconds = try retryDelay.value(in: arguments, command: command) { options.retryBaseDelay = seconds }
        if let bytes = try bufferSize.value(in: arguments, command: command) { options.bufferSize = Int(bytes) }
        return options
    }
}
