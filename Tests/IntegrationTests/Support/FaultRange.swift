import Foundation

/// RFC 9110 range and conditional request handling for `FaultBehavior.serve` and its faulty variants.
enum FaultRange {
    enum Parsed: Equatable {
        /// No `Range`, or one a server may ignore (malformed, several ranges, another unit).
        case none
        case satisfiable(Range<Int>)
        case unsatisfiable
    }

    /// Parses a `Range` value for a representation of `size` bytes.
    static func parse(_ value: String, size: Int) -> Parsed {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        guard let equals = trimmed.firstIndex(of: "="),
              trimmed[..<equals].trimmingCharacters(in: .whitespaces).lowercased() == "bytes" else { return .none }
        let spec = trimmed[trimmed.index(after: equals)...].trimmingCharacters(in: .whitespaces)
        guard !spec.contains(","), let dash = spec.firstIndex(of: "-") else { return .none }
        let first = spec[..<dash].trimmingCharacters(in: .whitespaces)
        let last = spec[spec.index(after: dash)...].trimmingCharacters(in: .whitespaces)
        let digits = { (text: String) in !text.isEmpty && text.allSatisfy(\.isASCII) && text.allSatisfy(\.isNumber) }
        if first.isEmpty {
            // Suffix: the last N bytes.
            guard digits(last), let count = Int(last) else { return .none }
            guard count > 0, size > 0 else { return .unsatisfiable }
            return .satisfiable(max(0, size - count)..<size)
        }
        guard digits(first), let start = Int(first) else { return .none }
        var end = Int.max
        if !last.isEmpty {
            guard digits(last), let inclusive = Int(last), inclusive >= start else { return .none }
            end = inclusive == Int.max ? Int.max : inclusive + 1
        }
        guard start < size else { return .unsatisfiable }
        return .satisfiable(start..<min(end, size))
    }

    /// The response `serve` gives; with `shift`, a satisfiable range is answered `shift` bytes off.
    static func respond(_ resource: FaultResource, to request: FaultRequest, shift: Int = 0) -> FaultResponse {
        var headers: FaultHeaders = ["Content-Type": resource.contentType, "Accept-Ranges": "bytes"]
        let lastModified = resource.lastModified.map(FaultResource.httpDate)
        if let etag = resource.etag { headers["ETag"] = etag }
        if let lastModified { headers["Last-Modified"] = lastModified }

        guard request.method == "GET" || request.method == "HEAD" else {
            return FaultResponse(status: 405, headers: ["Allow": "GET, HEAD"], body: Data("405 Method Not Allowed\n".utf8))
        }
        if notModified(request, etag: resource.etag, lastModified: resource.lastModified) {
            headers.remove("Content-Type")
            return FaultResponse(status: 304, headers: headers)
        }
        if let value = request.range, ifRangeHolds(request.ifRange, etag: resource.etag, lastModified: lastModified) {
            switch parse(value, size: resource.size) {
            case .satisfiable(let range):
                var sent = range
                if shift != 0 {
                    var start = range.lowerBound + shift
                    if start < 0 || start >= resource.size { start = range.lowerBound - shift }
                    start = min(max(start, 0), resource.size - 1)
                    sent = start..<min(start + range.count, resource.size)
                }
                headers["Content-Range"] = "bytes \(sent.lowerBound)-\(sent.upperBound - 1)/\(resource.size)"
                return FaultResponse(status: 206, headers: headers, body: [.resource(resource, sent)])
            case .unsatisfiable:
                return FaultResponse(
                    status: 416, headers: ["Content-Type": "text/plain", "Content-Range": "bytes */\(resource.size)"],
                    body: Data("416 Range Not Satisfiable\n".utf8))
            case .none:
                break
            }
        }
        return FaultResponse(status: 200, headers: headers, body: resource.size == 0 ? [] : [.resource(resource, 0..<resource.size)])
    }

    /// `If-Range` holds when absent, when it is the strong `etag`, or when it is exactly `lastModified`.
    static func ifRangeHolds(_ ifRange: String?, etag: String?, lastModified: String?) -> Bool {
        guard let ifRange = ifRange?.trimmingCharacters(in: .whitespaces) else { return true }
        if ifRange.hasPrefix("W/") { return false }
        if ifRange.hasPrefix("\"") { return etag != nil && !etag!.hasPrefix("W/") && ifRange == etag }
        return lastModified != nil && ifRange == lastModified
    }

    /// `If-None-Match` (weak comparison, `*`) wins over `If-Modified-Since`.
    static func notModified(_ request: FaultRequest, etag: String?, lastModified: Date?) -> Bool {
        if let ifNoneMatch = request.headers["If-None-Match"] {
            guard let etag else { return false }
            let opaque = { (tag: String) in tag.hasPrefix("W/") ? String(tag.dropFirst(2)) : tag }
            let tags = ifNoneMatch.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            return tags.contains("*") || tags.contains { opaque($0) == opaque(etag) }
        }
        if let since = request.headers["If-Modified-Since"], let lastModified, let date = parseHTTPDate(since) {
            return lastModified.timeIntervalSince1970.rounded(.down) <= date.timeIntervalSince1970
        }
        return false
    }

    static func parseHTTPDate(_ text: String) -> Date? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.date(from: text.trimmingCharacters(in: .whitespaces))
    }
}
