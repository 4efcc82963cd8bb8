package import AssetSyncModel

/// The rules every redirect hop must pass, assets and manifests alike: only
/// http and https, never from https to http, at most 10 hops; and whether the
/// hop leaves the origin that credentials were meant for.
package enum RedirectRule {
    static let maximumHops = 10

    package struct Hop {
        package var url: String
        /// Same scheme, host and port: credentials may follow.
        var sameOrigin: Bool
    }

    package struct Refusal: Error {
        package var reason: String
        /// What else avoids the refusal, which the command line words after `reason`.
        package var remedy: Remedy?
    }

    static func follow(from current: String, to location: String?, hop: Int) -> Result<Hop, Refusal> {
        guard let target = location else { return .failure(Refusal(reason: "a redirect without a usable Location")) }
        let prefix = target.prefix { $0 != ":" }.lowercased()
        guard prefix == "http" || prefix == "https" else {
            return .failure(Refusal(reason: "refused a redirect to \(QuotedValue.quote(target)): only http and https are allowed"))
        }
        let parts: URLRules.Parts
        do {
            // The manifest's rules for a URL: no control character, space or other byte a server could smuggle in.
            _ = try URLRules.check(target, field: "Location")
            parts = try URLRules.parse(target, field: "Location")
        } catch {
            return .failure(Refusal(reason: "refused a redirect to \(QuotedValue.quote(target)): \(error.problem)", remedy: error.remedy))
        }
        let scheme = parts.scheme
        if current.lowercased().hasPrefix("https:"), scheme == "http" {
            return .failure(Refusal(reason: "refused a redirect from https to http (\(QuotedValue.quote(target)))"))
        }
        guard hop <= maximumHops else { return .failure(Refusal(reason: "more than \(maximumHops) redirects")) }
        return .success(Hop(url: target, sameOrigin: origin(of: target) == origin(of: current)))
    }

    /// Scheme, host and port: credentials stay within one.
    package static func origin(of url: String) -> String { URLRules.origin(of: url) }
}
