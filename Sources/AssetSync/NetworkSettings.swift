import AssetSyncModel

/// How requests are made: parallelism, retries, rate, TLS, proxy, credentials and the object store.
public struct NetworkSettings: Sendable, Equatable {
    /// Transfers at once (1–64).
    public var jobs = 8
    /// Retries of a transient failure per source (0–100), with exponential backoff and jitter.
    public var retries = 5
    /// The most bytes per second for all transfers together; nil for no limit.
    public var bytesPerSecond: Int64?
    /// Request headers (`"Authorization: Bearer …"`), sent only to `credentialHosts` and to the
    /// manifest URL's own origin, never to another host after a redirect.
    public var headers: [String] = []
    /// Take credentials from `~/.netrc`, for the same hosts as `headers`.
    public var useNetrc = false
    /// Hosts (`host` or `host:port`) that may receive `headers` and netrc credentials besides the
    /// manifest URL's origin. A manifest never widens this set.
    public var credentialHosts: [String] = []
    /// A file of CA certificates to trust instead of the system's.
    public var caFile: String?
    /// An `http://` or `https://` proxy for every request.
    public var proxy: String?
    /// The S3-compatible store `s3://` URLs are fetched from, with the key that signs its requests.
    public var objectStorage = ObjectStorageSettings()

    /// The defaults: 8 transfers at once, 5 retries, no rate limit, no headers or netrc, the system's
    /// CA certificates, and no proxy but those the environment names (`http_proxy`, `https_proxy`, `no_proxy`).
    public init() {}
}

extension NetworkSettings {
    /// The transfer options these settings make; a value out of range is refused.
    func transferOptions() throws(AssetSyncError) -> TransferOptions {
        guard (1...64).contains(jobs) else { throw .invalid("jobs must be 1 to 64, not \(jobs)") }
        guard (0...100).contains(retries) else { throw .invalid("retries must be 0 to 100, not \(retries)") }
        var options = TransferOptions()
        options.jobs = jobs
        options.retries = retries
        if let rate = bytesPerSecond {
            guard rate > 0 else { throw .invalid("the rate limit must be at least 1 byte per second, not \(rate)") }
            options.limitRate = rate
        }
        options.headers = headers
        options.useNetrc = useNetrc
        options.caFile = caFile
        options.proxy = proxy
        for host in credentialHosts where !options.credentialScope.admit(host: host) {
            throw .invalid("a credential host must be a host name or address, with an optional :port, not \(QuotedValue.quote(host))")
        }
        return options
    }
}
