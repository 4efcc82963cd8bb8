import Foundation

/// One request a `FaultServer` received, as handed to a `FaultBehavior` and kept for assertions.
struct FaultRequest: Sendable {
    var method: String
    /// The request target as sent (origin form `/a?b`, or absolute form through a proxy).
    var target: String
    /// The target's path, without query (and without scheme and authority in absolute form).
    var path: String
    var query: String?
    /// `HTTP/1.1`
    var version: String
    var headers: FaultHeaders
    /// The request body (`Content-Length` framed), usually empty.
    var body: Data
    /// 1 for the first request to this path on this server, 2 for the next, …
    var attempt: Int
    /// The server's serial number of the TCP connection, from 1: equal numbers mean a reused connection.
    var connectionID: Int
    /// The request's position on its connection, from 1.
    var requestOnConnection: Int
    var time: Date
    var instant: ContinuousClock.Instant

    /// The response status chosen for this request (nil until the behaviour answered).
    var responseStatus: Int?
    /// Bytes written so far after the response head (the framed body); updated while writing.
    var bodyBytesSent = 0
    /// Whether the response is over: written, cut, reset, or failed.
    var responseEnded = false
    /// Whether the whole response was written (false for cut, reset or interrupted responses).
    var completed = false

    subscript(header name: String) -> String? { headers[name] }

    var range: String? { headers["Range"] }
    var ifRange: String? { headers["If-Range"] }
    var authorization: String? { headers["Authorization"] }
    var wantsClose: Bool {
        let connection = headers["Connection"]?.lowercased() ?? ""
        return version == "HTTP/1.0" ? !connection.contains("keep-alive") : connection.contains("close")
    }

    /// Parses a request head (request line and header fields, without the final empty line).
    /// Tolerates bare LF line ends and optional whitespace; rejects obs-fold and missing colons.
    static func parseHead(_ head: Data) -> (method: String, target: String, version: String, headers: FaultHeaders)? {
        // Bytes, not Characters: in Swift "\r\n" is one Character and never splits on "\n".
        var lines = head.split(separator: 10, omittingEmptySubsequences: false).map { line -> String in
            let bytes = line.last == 13 ? line.dropLast() : line
            return String(data: Data(bytes), encoding: .utf8) ?? String(decoding: bytes, as: UTF8.self)
        }
        while lines.first?.isEmpty == true { lines.removeFirst() }  // RFC 9112: ignore leading empty lines
        guard let requestLine = lines.first else { return nil }
        let parts = requestLine.split(separator: " ", omittingEmptySubsequences: true)
        guard parts.count == 3, parts[2].hasPrefix("HTTP/") else { return nil }
        var headers = FaultHeaders()
        for line in lines.dropFirst() where !line.isEmpty {
            guard let colon = line.firstIndex(of: ":"), line.first != " ", line.first != "\t" else { return nil }
            let name = line[..<colon]
            guard !name.isEmpty, !name.contains(" ") else { return nil }
            let value = line[line.index(after: colon)...].trimmingCharacters(in: CharacterSet(charactersIn: " \t"))
            headers.add(String(name), value)
        }
        return (String(parts[0]), String(parts[1]), String(parts[2]), headers)
    }

    /// Splits a request target into path and query, dropping `scheme://authority` of an absolute form.
    static func splitTarget(_ target: String) -> (path: String, query: String?) {
        var rest = Substring(target)
        if let scheme = rest.range(of: "://"), rest[..<scheme.lowerBound].allSatisfy({ $0.isLetter }) {
            rest = rest[scheme.upperBound...]
            rest = rest.firstIndex(where: { $0 == "/" || $0 == "?" }).map { rest[$0...] } ?? "/"
        }
        guard let mark = rest.firstIndex(of: "?") else { return (String(rest), nil) }
        return (String(rest[..<mark]), String(rest[rest.index(after: mark)...]))
    }
}
