import AssetSyncModel
/// When a failed request is tried again, for asset downloads and the manifest fetch alike:
/// connection errors, timeouts, stalls and HTTP 408, 429 and 5xx are transient; the wait
/// grows exponentially with jitter, and honours `Retry-After` up to five maximum delays.
struct RetryPolicy {
    var baseDelay: Double
    var maximumDelay: Double

    init(_ options: TransferOptions) {
        baseDelay = options.retryBaseDelay
        maximumDelay = options.maximumRetryDelay
    }

    /// Whether an HTTP status may succeed when asked again.
    static func isTransient(status: Int) -> Bool { status == 408 || status == 429 || status >= 500 }

    /// The wait before retry number `retry` (1 for the first), at least what `Retry-After` asked for.
    func delay(beforeRetry retry: Int, retryAfter: Double?) -> Double {
        let exponential = min(maximumDelay, baseDelay * Double(1 << min(retry - 1, 20)))
        return max(exponential * Double.random(in: 0.5...1.0), min(retryAfter ?? 0, maximumDelay * 5))
    }
}
