import Foundation

/// Exactly what a `FaultServer` writes for one request: head, body, framing, and the fault
/// (cut, reset, stall, slowness) applied while writing. Built by a `FaultBehavior`.
struct FaultResponse: Sendable {
    /// A piece of the body: literal bytes, or a range of a resource (read while streaming).
    enum Segment: Sendable {
        case bytes(Data)
        case resource(FaultResource, Range<Int>)

        var count: Int {
            switch self {
            case .bytes(let data): data.count
            case .resource(_, let range): range.count
            }
        }
    }

    /// How the body's end is marked.
    enum Framing: Sendable, Equatable {
        /// `Content-Length`: the body's real length when nil, else this (possibly lying) number.
        case contentLength(Int?)
        /// No `Content-Length`; the connection's close ends the body.
        case closeDelimited
        /// `Transfer-Encoding: chunked` with chunks of this many payload bytes.
        case chunked(chunkSize: Int)
    }

    /// What ends the writing early. `after` counts bytes after the head, on the wire (chunk
    /// framing included); when the body is shorter, the fault comes after the whole body.
    enum Cutoff: Sendable, Equatable {
        /// Close orderly (FIN).
        case close(after: Int)
        /// Close with a reset (RST, `SO_LINGER` 0).
        case reset(after: Int)
        /// Send nothing for `seconds` with the socket open, then `then`.
        case stall(after: Int, seconds: Double, then: StallEnd)
    }

    enum StallEnd: Sendable, Equatable {
        /// Close orderly after the stall.
        case close
        /// Reset after the stall.
        case reset
        /// Go on writing the rest of the response after the stall.
        case resume
    }

    /// Write at most `chunkSize` bytes, then wait `delay` seconds, until the response is written.
    struct Pacing: Sendable, Equatable {
        var chunkSize: Int
        var delay: Double
    }

    var status: Int
    var reason: String
    /// Header fields besides the framing ones (`Content-Length`, `Transfer-Encoding`), which the
    /// server adds from `framing` unless a field of that name is already here; it also adds
    /// `Date`, `Server` and, when it will close, `Connection: close`, unless present.
    var headers: FaultHeaders
    var body: [Segment]
    var framing: Framing = .contentLength(nil)
    var cutoff: Cutoff?
    var pacing: Pacing?
    /// Close the connection after this response even if all went well.
    var closeConnection = false
    /// When set, written instead of the generated status line and headers (include the final CRLF CRLF).
    var rawHead: Data?

    init(status: Int, reason: String? = nil, headers: FaultHeaders = [:], body: [Segment] = []) {
        self.status = status
        self.reason = reason ?? FaultResponse.reasonPhrase(status)
        self.headers = headers
        self.body = body
    }

    init(status: Int, reason: String? = nil, headers: FaultHeaders = [:], body: Data) {
        self.init(status: status, reason: reason, headers: headers, body: body.isEmpty ? [] : [.bytes(body)])
    }

    /// The body's real length (what would be written without a cutoff).
    var bodyLength: Int { body.reduce(0) { $0 + $1.count } }

    /// Whether the connection must close after this response: a cut, a close-delimited body,
    /// or a declared length that differs from the real one.
    var mustClose: Bool {
        if closeConnection || cutoff != nil { return true }
        switch framing {
        case .closeDelimited: return true
        case .contentLength(let declared?): return declared != bodyLength
        case .contentLength(nil), .chunked: return false
        }
    }

    static func reasonPhrase(_ status: Int) -> String {
        switch status {
        case 200: "OK"
        case 204: "No Content"
        case 206: "Partial Content"
        case 301: "Moved Permanently"
        case 302: "Found"
        case 303: "See Other"
        case 304: "Not Modified"
        case 307: "Temporary Redirect"
        case 308: "Permanent Redirect"
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 408: "Request Timeout"
        case 410: "Gone"
        case 412: "Precondition Failed"
        case 416: "Range Not Satisfiable"
        case 429: "Too Many Requests"
        case 431: "Request Header Fields Too Large"
        case 500: "Internal Server Error"
        case 502: "Bad Gateway"
        case 503: "Service Unavailable"
        case 504: "Gateway Timeout"
        default: "Status \(status)"
        }
    }
}
