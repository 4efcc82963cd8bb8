package import AssetSync

/// The options of every command that makes a request (`pull`, `plan` and `verify`, for a manifest
/// URL or a repair), and the tuning environment variables, read into `TransferOptions` by one
/// parser. A new network option is added here once: its spec entry, its help line and its parsing.
package enum NetworkOptions {
    package static let valueOptions = [
        "--header": "<header>", "--auth-host": "<host>", "--cacert": "<file>", "--proxy": "<url>",
        "--speed-limit": "<rate>", "--speed-time": "<seconds>",
        "--endpoint-url": "<url>", "--region": "<region>", "--profile": "<name>", "--addressing-style": "auto|path|virtual",
    ]
    package static let flags = ["--netrc"]
    package static let repeatable: Set<String> = ["--header", "--auth-host"]
    package static let usage = "[--header <header> ...] [--netrc] [--auth-host <host> ...] [--cacert <file>] [--proxy <url>] "
        + "[--speed-limit <rate>] [--speed-time <seconds>] [--endpoint-url <url>] [--region <region>] [--profile <name>] "
        + "[--addressing-style auto|path|virtual]"
    /// The lines of the OPTIONS section of each command's help.
    package static let help = """
          --header <header>       An extra request header, 'Name: value'; may be repeated.
                                  Sent only to the manifest URL's origin and --auth-host
                                  hosts, never to another host after a redirect.
          --netrc                 Take credentials from ~/.netrc, for the same hosts.
          --auth-host <host>      Also send --header and netrc credentials to this host
                                  (host or host:port); may be repeated. Required for them
                                  with a local manifest: a manifest never chooses the hosts.
          --cacert <file>         Trust the CA certificates in this PEM file, besides the system's.
          --proxy <url>           Use this proxy. (default: the http_proxy, https_proxy and
                                  no_proxy environment variables)
          --speed-limit <rate>    A transfer slower than this on average over --speed-time
                                  has stalled: it is retried, then fails. 0 turns it off.
                                  (default: 100 bytes per second)
          --speed-time <seconds>  The window --speed-limit is averaged over, 1 to 3600.
                                  (default: 60)
          --endpoint-url <url>    The S3-compatible store s3:// URLs are fetched from, whose
                                  requests are signed: MinIO, R2, GCS, Ceph. (default:
                                  AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL, the profile's
                                  endpoint_url, else AWS's endpoint of the region)
          --region <region>       The store's region, named in signatures. (default:
                                  AWS_REGION, AWS_DEFAULT_REGION, the profile's, else us-east-1)
          --profile <name>        The profile of ~/.aws/credentials and ~/.aws/config that
                                  holds the store's key and settings. (default: AWS_PROFILE,
                                  else default)
          --addressing-style auto|path|virtual
                                  How a request names the bucket: path (https://host/BUCKET/KEY),
                                  virtual (https://BUCKET.host/KEY), or auto: virtual for AWS,
                                  path for another endpoint. (default: the profile's, else auto)
        """

    package static let speedLimit = NumericSetting(source: .option("--speed-limit"), kind: .byteRate, range: 0...Double(1 << 40))
    package static let speedTime = NumericSetting(source: .option("--speed-time"), kind: .whole, range: 1...3_600, unit: "seconds")

    /// The tuning variables, for tests and benchmarks (README, "Tuning").
    package static let stallTimeout = NumericSetting(source: .environment("ASSETSYNC_STALL_TIMEOUT"), kind: .whole, range: 1...86_400, unit: "seconds")
    package static let retryDelay = NumericSetting(source: .environment("ASSETSYNC_RETRY_DELAY"), kind: .decimal, range: 0...3_600, unit: "seconds")
    package static let bufferSize = NumericSetting(
        source: .environment("ASSETSYNC_BUFFER_SIZE"), kind: .whole, range: 16_384...10_485_760, unit: "bytes")
    package static let segments = NumericSetting(source: .environment("ASSETSYNC_SEGMENTS"), kind: .whole, range: 1...64)
    package static let segmentThreshold = NumericSetting(
        source: .environment("ASSETSYNC_SEGMENT_THRESHOLD"), kind: .whole, range: 1...Double(1 << 50), unit: "bytes")
    package static let transferThreads = NumericSetting(source: .environment("ASSETSYNC_TRANSFER_THREADS"), kind: .whole, range: 1...2)

    /// The transfer options these options and variables give; a bad value is a usage error of `command`.
    package static func parse(_ arguments: ParsedArguments, environment: [String: String], command: String) throws(UsageError) -> TransferOptions {
        var options = TransferOptions()
        for header in arguments.values["--header"] ?? [] {
            let parts = header.split(separator: ":", maxSplits: 1)
            guard parts.count == 2, !parts[0].isEmpty, !parts[0].contains(" "),
                  !header.contains("\r"), !header.contains("\n")
            else { throw UsageError(message: "'--header' must look like 'Name: value', not \(QuotedValue.quote(header))", command: command) }
            options.headers.append(header)
        }
        for host in arguments.values["--auth-host"] ?? [] {
            guard options.credentialScope.admit(host: host) else {
                throw UsageError(
                    message: "'--auth-host' must be a host name or address, with an optional :port, not \(QuotedValue.quote(host))",
                    command: command)
            }
        }
        if let source = arguments.arguments.first, CommandSteps.isURL(source), !URLRules.isObjectStoreURL(source) {
            options.credentialScope.admit(originOf: source)
        } else if options.credentialScope.isEmpty, !options.headers.isEmpty || arguments.flags.contains("--netrc") {
            let manifest = arguments.arguments.first.map(URLRules.isObjectStoreURL) == true
                ? "an s3:// manifest (whose store takes its own key)" : "a local manifest"
            throw UsageError(
                message: "with \(manifest), '--header' and '--netrc' go only to hosts named with '--auth-host HOST'",
                command: command)
        }
        if let caFile = arguments.value("--cacert") {
            guard AssetSync.isReadable(caFile) else {
                throw UsageError(message: "'--cacert' file \(QuotedValue.quote(caFile)) cannot be read", command: command)
            }
            options.caFile = caFile
        }
        options.useNetrc = arguments.flags.contains("--netrc")
        options.proxy = arguments.value("--proxy")
        if let bytes = try speedLimit.value(in: arguments, environment: environment, command: command) { options.speedLimit = Int64(bytes.rounded()) }
        if let seconds = try speedTime.value(in: arguments, environment: environment, command: command) { options.speedTime = Int(seconds) }
        if let seconds = try stallTimeout.value(in: arguments, environment: environment, command: command) { options.stallTimeout = Int(seconds) }
        if let seconds = try retryDelay.value(in: arguments, environment: environment, command: command) { options.retryBaseDelay = seconds }
        if let bytes = try bufferSize.value(in: arguments, environment: environment, command: command) { options.bufferSize = Int(bytes) }
        if let count = try segments.value(in: arguments, environment: environment, command: command) { options.segments = Int(count) }
        if let count = try transferThreads.value(in: arguments, environment: environment, command: command) {
            options.transferThreads = Int(count)
        }
        if let bytes = try segmentThreshold.value(in: arguments, environment: environment, command: command) {
            options.segmentThreshold = Int64(bytes)
        }
        return options
    }

    /// The S3 store settings these options give over `environment`'s; resolved only if a manifest names a store.
    package static func objectStorage(_ arguments: ParsedArguments, environment: [String: String], command: String) throws(UsageError) -> ObjectStorageRequest {
        var storage = ObjectStorageRequest()
        storage.environment = environment
        storage.endpoint = arguments.value("--endpoint-url")
        storage.region = arguments.value("--region")
        storage.profile = arguments.value("--profile")
        if let style = arguments.value("--addressing-style") {
            guard let known = S3AddressingStyle(rawValue: style) else {
                throw UsageError(message: "'--addressing-style' must be auto, path or virtual, not \(QuotedValue.quote(style))", command: command)
            }
            storage.addressingStyle = known
        }
        for (option, value) in [("--region", storage.region), ("--profile", storage.profile)] where value?.isEmpty == true {
            throw UsageError(message: "'\(option)' must not be empty", command: command)
        }
        return storage
    }
}
