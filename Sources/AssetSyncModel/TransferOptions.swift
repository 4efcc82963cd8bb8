/// How transfers are made: parallelism, retries, credentials, TLS, limits.
package struct TransferOptions: Sendable {
    /// Parallel transfers. In the `--jobs` curves of docs/performance.md (1 to 16, sets B and C over
    /// http, https and h2), 8 was the fastest or within the spread of the fastest in 5 of the 6; h2 B
    /// was 13% faster at 16, https B 17% slower. Fewer leave a fast link idle between small files.
    package var jobs = 8
    /// Retries per URL for transient failures, before the next mirror is tried.
    package var retries = 5
    /// Extra request headers ("Name: value"): credentials, sent only within `credentialScope`
    /// and never to another origin after a redirect.
    package var headers: [String] = []
    package var useNetrc = false
    /// The S3-compatible store `s3://` URLs are fetched from, and whose requests are signed
    /// (`SignatureV4`); nil: none (an `s3://` URL then goes to AWS, unsigned).
    package var objectStore: ObjectStoreAccess?
    /// Where `headers` and netrc credentials may go; empty: nowhere.
    package var credentialScope = CredentialScope()
    /// A PEM file of CA certificates trusted in addition to the system's.
    package var caFile: String?
    package var proxy: String?
    /// Bytes per second for the whole run, shared between the transfers running at each moment.
    package var limitRate: Int64?
    /// A transfer that receives no byte for this many seconds has stalled.
    package var stallTimeout = 30
    /// A transfer that averages fewer bytes a second than this over `speedTime` seconds has stalled
    /// too (0: never). 100 B/s over a minute catches a server trickling bytes, and never a slow but
    /// healthy link: a 9.6 kbit/s line shared by 8 transfers still gives each about 150 B/s. A trip
    /// costs only a reconnection: the retry resumes where the bytes stopped.
    package var speedLimit: Int64 = 100
    package var speedTime = 60
    package var connectTimeout = 30
    /// The first retry waits about this long; each later one twice as long, up to `maximumRetryDelay`.
    package var retryBaseDelay = 1.0
    package var maximumRetryDelay = 60.0
    /// Bytes libcurl hands to each write: 128 KiB measured fastest here (see bench/pull).
    package var bufferSize = 128 << 10
    /// Files smaller than this keep no resume record: after an interruption they download again from
    /// zero, which costs less than the record's create, rename and unlink that every file would pay.
    /// Measured here: a record 45 µs to several ms (file creation swings); 256 KiB more on a loopback
    /// download about 0.17 ms. Retries within a run still resume from the bytes received.
    package var minimumResumableSize: Int64 = 256 << 10

    /// A file of at least this many bytes is fetched as several ranges at once, each segment at
    /// least this long (see `segments`).
    package var segmentThreshold: Int64 = 128 << 20
    /// The most ranges one large file is fetched as at once; each counts as one of `jobs`.
    package var segments = 4
    /// Threads that receive: with 2, a large file's segments are shared with a second thread, so
    /// that decrypting one file over TLS runs on two cores; 1 keeps every transfer on one thread.
    package var transferThreads = 2

    package init() {}
}
