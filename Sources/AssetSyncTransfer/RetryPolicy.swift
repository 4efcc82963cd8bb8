import CCurl

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

    /// Whether a libcurl error is final for its URL: asking again cannot change it.
    static func isFinal(_ code: CURLcode) -> Bool {
        switch code {
        case CURLE_UNSUPPORTED_PROTOCOL, CURLE_URL_MALFORMAT, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CACERT_BADFILE,
             CURLE_LOGIN_DENIED, CURLE_REMOTE_ACCESS_DENIED:
            return true
        default:
            return false
        }
    }

    /// Whether a libcurl error says the server cannot be reached at all (no address, nothing
    /// listening): worth asking again when there is no other source, not before trying one.
    static func isUnreachable(_ code: CURLcode) -> Bool {
        code == CURLE_COULDNT_CONNECT || code == CURLE_COULDNT_RESOLVE_HOST
    }

    /// Whether a libcurl error is about the server rather than the URL asked: it could not be
    /// reached (no address, nothing listening) or its TLS did not verify or complete. Only such an
    /// error marks a whole host bad (`SourceHealth.Scope.host`): another path there fails alike.
    static func isConnectionLevel(_ code: CURLcode) -> Bool {
        switch code {
        case CURLE_COULDNT_CONNECT, CURLE_COULDNT_RESOLVE_HOST, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CONNECT_ERROR:
            return true
        default:
            return false
        }
    }

    /// The wait before retry number `retry` (1 for the first), at least what `Retry-After` asked for.
    func delay(beforeRetry retry: Int, retryAfter: Double?) -> Double {
        let exponential = min(maximumDelay, baseDelay * Double(1 << min(retry - 1, 20)))
        return max(exponential * Double.random(in: 0.5...1.0), min(retryAfter ?? 0, maximumDelay * 5))
    }
}
