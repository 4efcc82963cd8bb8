/// The parts of an HTTP response head that a download acts on. A new status
/// line (after a redirect or a 100 Continue) starts a new head.
package struct ResponseHead {
    package var status = 0
    package var etag: String?
    package var lastModified: String?
    var contentRange: String?
    var retryAfter: String?
    /// The declared length of the body, when it is a plain decimal number.
    var contentLength: Int64?
    /// `Content-Type: multipart/byteranges`: a range answered as parts, each with its own head
    /// and `Content-Range`, which are not the file's bytes.
    var isMultipartRanges = false

    /// Takes one header line as libcurl delivers it, CRLF included. Read as bytes: a header's name
    /// and its white space are ASCII, and this runs for every line of every response.
    package mutating func take(_ line: Substring) {
        let bytes = line.utf8
        if bytes.starts(with: "HTTP/".utf8) {
            self = ResponseHead()
            let words = bytes.split(whereSeparator: Self.isWhitespace)
            if words.count >= 2 { status = Int(Substring(words[1])) ?? 0 }
            return
        }
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")) else { return }
        let name = bytes[..<colon]
        var value: String { String(Substring(Self.trimmed(bytes[bytes.index(after: colon)...]))) }
        if Self.isName(name, "etag") {
            etag = Self.validator(value)
        } else if Self.isName(name, "last-modified") {
            lastModified = Self.validator(value)
        } else if Self.isName(name, "content-range") {
            contentRange = value
        } else if Self.isName(name, "retry-after") {
            retryAfter = value
        } else if Self.isName(name, "content-length") {
            contentLength = Int64(value)
        } else if Self.isName(name, "content-type") {
            isMultipartRanges = value.lowercased().hasPrefix("multipart/byteranges")
        }
    }

    /// Whether a header's `name` is `lowercase`, in any case of its ASCII letters.
    private static func isName(_ name: Substring.UTF8View, _ lowercase: StaticString) -> Bool {
        let wanted = UnsafeRawBufferPointer(start: lowercase.utf8Start, count: lowercase.utf8CodeUnitCount)
        return name.count == wanted.count
            && zip(name, wanted).allSatisfy { byte, letter in (byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte) == letter }
    }

    /// Space, tab, CR or LF: the white space around a header's words and value.
    private static func isWhitespace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0D || byte == 0x0A }

    private static func trimmed(_ bytes: Substring.UTF8View) -> Substring.UTF8View {
        guard let first = bytes.firstIndex(where: { !isWhitespace($0) }), let last = bytes.lastIndex(where: { !isWhitespace($0) })
        else { return bytes[bytes.endIndex...] }
        return bytes[first...last]
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
