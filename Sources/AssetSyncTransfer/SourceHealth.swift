import AssetSyncModel

/// The sources found bad during one run: one table per `TransferEngine`, read and written on
/// the transfer thread only. A source is marked when it served bytes that failed the CRC check,
/// answered with the wrong size, or kept failing (its retries for a file exhausted, or a final
/// error); later files ask it only after their other sources (`DownloadDecisions`). A 404 or another
/// final answer about one file marks nothing: a mirror lacking one file still serves the others.
///
/// What a mark covers is what the failure says something about:
///
/// - a failure of what was served (an HTTP status, a timeout, corrupt bytes, a wrong size) marks
///   the source: for a URL relative to the manifest's base or a mirror base, that base (the unit a
///   manifest names and an operator runs: two bases on one host can be two caches, one of them
///   stale); for any other URL, that URL alone (`URLRules.normalized`), for another path on its
///   host may be another file system, another application, another cache entry;
/// - a failure to reach the server at all (`Scope.host`: nothing listening, no address, TLS that
///   does not verify or complete) marks the scheme, host and port of the URL asked, and so every
///   source there, besides the source itself.
final class SourceHealth {
    /// How far a failure reaches.
    enum Scope {
        /// The source: its base, or its URL when no base names it.
        case source
        /// Every URL on the same scheme, host and port as the one that could not be reached.
        case host
    }

    /// Why each bad source or host was marked: the first failure seen there.
    private var badSources: [String: String] = [:]
    private var badHosts: [String: String] = [:]

    init() {}

    /// What a mark of `source` as a source covers: the base it counts under, or its URL.
    static func sourceKey(_ source: DownloadSource) -> String {
        // An origin that is not the URL's own scheme, host and port is the base the URL lies under.
        source.origin == URLRules.origin(of: source.url) ? URLRules.normalized(source.url) ?? source.url : source.origin
    }

    func isBad(_ source: DownloadSource) -> Bool { reason(source) != nil }

    /// Why `source` was marked bad, if it was: as a source, or its host.
    func reason(_ source: DownloadSource) -> String? {
        badSources[Self.sourceKey(source)] ?? badHosts[URLRules.origin(of: source.url)]
    }

    /// Marks `source` bad for `reason`, seen at `url` (the URL asked, after redirects; the source's
    /// own by default). `.host` marks the host of `url` too.
    func markBad(_ source: DownloadSource, reason: String, scope: Scope = .source, at url: String? = nil) {
        let url = url ?? source.url
        let words = "\(url): \(reason)"
        let key = Self.sourceKey(source)
        if badSources[key] == nil { badSources[key] = words }
        if scope == .host {
            let host = URLRules.origin(of: url)
            if badHosts[host] == nil { badHosts[host] = words }
        }
    }
}
