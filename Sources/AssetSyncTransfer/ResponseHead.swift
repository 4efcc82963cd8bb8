/// The parts of an HTTP response head that a download acts on. A new status
/// line (after a redirect or a 100 Continue) starts a new head.
package struct ResponseHead {
    package var status = 0
    package var etag: String?
    package var lastModified: String?
    var contentRange: String?
    var retryAfter: String?

    /// Takes one header line as libcurl delivers it, CRLF included.
    package mutating func take(_ line: Substring) {
        if line.hasPrefix("HTTP/") {
            self = ResponseHead()
            let parts = line.split(whereSeparator: \.isWhitespace)
            if parts.count >= 2 { status = Int(parts[1]) ?? 0 }
            return
        }
        guard let colon = line.firstIndex(of: ":") else { return }
        let name = line[..<colon].lowercased()
        let value = String(line[line.index(after: colon)...].trimmingWhitespace())
        switch name {
        case "etag": etag = Self.validator(value)
        case "last-modified": lastModified = Self.validator(value)
        case "content-range": contentRange = value
        case "retry-after": retryAfter = value
        default: break
        }
    }

    static let maximumValidatorBytes = 512

    /// An ETag or Last-Modified worth replaying in `If-Range` or `If-None-Match`: a valid header
    /// value (visible ASCII, space and tab) of bounded length. Anything else (a bare CR, bytes
    /// outside ASCII) is dropped, so that no validator is kept and a resume starts from zero.
    static func validator(_ value: String) -> String? {
        guard !value.isEmpty, value.utf8.count <= maximumValidatorBytes,
              value.utf8.allSatisfy({ ($0 >= 0x20 && $0 < 0x7F) || $0 == 0x09 })
        else { return nil }
        return value
    }

    /// The byte range of a 206 answer, from `Content-Range: bytes first-last/total` (total may be `*`).
    package var range: (first: Int64, last: Int64, total: Int64?)? {
        guard let contentRange, contentRange.hasPrefix("bytes ") else { return nil }
        let spec = contentRange.dropFirst(6)
        let halves = spec.split(separator: "/", maxSplits: 1)
        guard halves.count == 2 else { return nil }
        let bounds = halves[0].split(separator: "-", maxSplits: 1)
        guard bounds.count == 2, let first = Int64(bounds[0]), let last = Int64(bounds[1]), first <= last else { return nil }
        if halves[1] == "*" { return (first, last, nil) }
        guard let total = Int64(halves[1]) else { return nil }
        return (first, last, total)
    }

    /// Seconds from `Retry-After`: delta-seconds only; an HTTP date counts as absent.
    var retryAfterSeconds: Double? {
        guard let retryAfter, let seconds = Int(retryAfter), seconds >= 0 else { return nil }
        return Double(seconds)
    }
}

extension Substring {
    /// Without leading and trailing white space (CR LF included).
    func trimmingWhitespace() -> Substring {
        guard let first = firstIndex(where: { !$0.isWhitespace }), let last = lastIndex(where: { !$0.isWhitespace }) else {
            return ""
        }
        return self[first...last]
    }
}
