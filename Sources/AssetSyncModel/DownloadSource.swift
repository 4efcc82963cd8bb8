/// One URL a file may be fetched from, and the source it counts under: the key a failure there
/// marks bad for the rest of the run, and under which bytes per mirror are counted.
public struct DownloadSource: Sendable, Equatable {
    public var url: String
    /// The manifest's `base` or a mirror base, for a URL relative to one; otherwise the URL's
    /// scheme, host and port (`https://cdn.example.com:443`).
    public var origin: String

    public init(url: String, origin: String) {
        self.url = url
        self.origin = origin
    }

    /// An absolute URL that no base names: it counts under its scheme, host and port.
    public init(url: String) {
        self.init(url: url, origin: URLRules.origin(of: url))
    }
}
