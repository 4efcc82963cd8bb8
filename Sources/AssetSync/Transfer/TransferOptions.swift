/// How transfers are made: parallelism, retries, credentials, TLS, limits.
public struct TransferOptions: Sendable {
    /// Parallel transfers. 8 measured best on loopback and on a LAN mirror (see bench/pull).
    public var jobs = 8
    /// Retries per URL for transient failures, before the next mirror is tried.
    public var retries = 5
    /// Extra request headers ("Name: value"), sent only to the host of the URL that was asked for.
    public var headers: [String] = []
    public var useNetrc = false
    /// A PEM file of CA certificates trusted in addition to the system's.
    public var caFile: String?
    public var proxy: String?
    /// Bytes per second for the whole run, shared between the parallel transfers.
    public var limitRate: Int64?
    /// A transfer that receives no byte for this many seconds has stalled.
    public var stallTimeout = 30
    public var connectTimeout = 30
    /// The first retry waits about this long; each later one twice as long, up to `maximumRetryDelay`.
    public var retryBaseDelay = 1.0
    public var maximumRetryDelay = 60.0
    /// Bytes libcurl hands to each write: 128 KiB measured fastest here (see bench/pull).
    public var bufferSize = 128 << 10

    public init() {}
}
