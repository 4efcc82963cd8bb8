/// Where the user's credentials (`--header` values, netrc) may be sent: the origin (scheme, host
/// and port) of a manifest URL, and hosts named on the command line with `--auth-host`. A manifest
/// never widens it: its `url=`s and mirrors on any other host are asked without credentials.
package struct CredentialScope: Sendable, Equatable {
    /// Origins as `URLRules.origin` spells them: `https://cdn.example.com:443`.
    private var origins: Set<String> = []
    /// `--auth-host` names, lower-cased: `host` (any port) or `host:port`.
    private var hosts: Set<String> = []

    /// Admits no host.
    package init() {}

    /// Admits the origin of `url` (the manifest's own URL).
    package mutating func admit(originOf url: String) { origins.insert(URLRules.origin(of: url)) }

    /// Admits `HOST` on every port, or `HOST:PORT` (an IPv6 address in brackets) on that port only;
    /// false (admitting nothing) when `spec` is not such a name.
    package mutating func admit(host spec: String) -> Bool {
        let lower = spec.lowercased()
        guard let (host, port) = Self.split(lower), !host.isEmpty, host.hasPrefix("[") || !host.contains(":"),
              host.unicodeScalars.allSatisfy({ $0.isASCII && $0.value > 0x20 && !"/?#@\\\"".unicodeScalars.contains($0) }),
              port.map({ text in Int(text).map { (1...65_535).contains($0) } ?? false }) ?? true
        else { return false }
        hosts.insert(lower)
        return true
    }

    package var isEmpty: Bool { origins.isEmpty && hosts.isEmpty }

    /// Whether a request to `url` may carry the credentials.
    package func admits(_ url: String) -> Bool {
        let origin = URLRules.origin(of: url)
        if origins.contains(origin) { return true }
        let authority = origin.drop { $0 != "/" }.drop { $0 == "/" }  // after "scheme://"
        guard let (host, port) = Self.split(String(authority)) else { return false }
        let effectivePort = port ?? (origin.hasPrefix("https:") ? "443" : "80")
        return hosts.contains(host) || hosts.contains(host + ":" + effectivePort)
    }

    /// `host:port` → (host, port); `host` → (host, nil); `[::1]:8080` → ("[::1]", "8080").
    private static func split(_ authority: String) -> (host: String, port: String?)? {
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            let host = String(authority[...close])
            let rest = authority[authority.index(after: close)...]
            if rest.isEmpty { return (host, nil) }
            guard rest.hasPrefix(":") else { return nil }
            return (host, String(rest.dropFirst()))
        }
        guard let colon = authority.lastIndex(of: ":") else { return (authority, nil) }
        return (String(authority[..<colon]), String(authority[authority.index(after: colon)...]))
    }
}
