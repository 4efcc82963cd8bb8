/// Which version of a file a partial download holds: the URL it came from and the
/// server's validators, kept beside the partial so that the next attempt or run
/// continues it with `Range` + `If-Range` only when it is the same version.
/// The cache stores these fields without reading them.
package struct ResumeRecord: Equatable {
    package var url: String
    package var etag: String?
    package var lastModified: String?

    package init(url: String, etag: String?, lastModified: String?) {
        self.url = url
        self.etag = etag
        self.lastModified = lastModified
    }

    /// The validator to send in `If-Range`: the strong ETag, else Last-Modified.
    var ifRange: String? {
        if let etag, !etag.hasPrefix("W/") { return etag }
        return lastModified
    }

    /// The fields as the cache keeps them.
    package var fields: [(key: String, value: String?)] {
        [("url", url), ("etag", etag), ("last-modified", lastModified)]
    }

    /// The record in `fields`; nil without a URL, which only costs a fresh start.
    package init?(fields: [String: String]) {
        guard let url = fields["url"] else { return nil }
        self.init(url: url, etag: fields["etag"], lastModified: fields["last-modified"])
    }

    /// Whether the bytes kept with `fields` may be continued: only with a validator for `If-Range`.
    package static func canResume(_ fields: [String: String]) -> Bool {
        ResumeRecord(fields: fields)?.ifRange != nil
    }
}
