/// One URL a file may be fetched from, and the source it counts under: the key a failure there
/// marks bad for the rest of the run, and under which bytes per mirror are counted.
package struct DownloadSource: Sendable, Equatable {
    package var url: String
    /// The manifest's `base` or a mirror base, for a URL relative to one; otherwise the URL's
    /// scheme, host and port (`https://cdn.example.com:443`).
    package var origin: String

    package init(url: String, origin: String) {
        self.url = url
        self.origin = origin
    }

    /// An absolute URL that no base names: it counts under its scheme, host and port.
    package init(url: String) {
        self.init(url: url, origin: URLRules.origin(of: url))
    }
}
