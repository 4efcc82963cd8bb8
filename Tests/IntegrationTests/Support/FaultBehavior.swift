import Foundation

/// How a `FaultServer` route answers: a function from the request (with its attempt number) to
/// the exact response. Build one from the static cases and refine it with the modifiers:
///
///     .serve(resource)                                  // correct 200/206/304/416
///     .serve(resource).truncated(after: 1000)           // declares all, sends 1000, FIN
///     .sequence([.serverError, .serve(resource)])       // 500 on attempt 1, then correct
///     .custom { request in FaultResponse(status: 200, body: Data(request.path.utf8)) }
struct FaultBehavior: Sendable {
    let respond: @Sendable (FaultRequest) -> FaultResponse

    init(_ respond: @escaping @Sendable (FaultRequest) -> FaultResponse) { self.respond = respond }

    /// Any response, computed from the request.
    static func custom(_ respond: @escaping @Sendable (FaultRequest) -> FaultResponse) -> FaultBehavior {
        FaultBehavior(respond)
    }

    // MARK: - Correct serving and its range faults

    /// Serves `resource` correctly: GET and HEAD; `ETag`, `Last-Modified`, `Accept-Ranges`;
    /// `Range: bytes=a-b | a- | -n` → 206 with `Content-Range`; unsatisfiable → 416 `bytes */size`;
    /// several ranges or a malformed one → 200 whole; `If-Range` (strong ETag or exact date)
    /// that does not match → 200 whole; `If-None-Match` / `If-Modified-Since` → 304.
    static func serve(_ resource: FaultResource) -> FaultBehavior {
        FaultBehavior { request in FaultRange.respond(resource, to: request) }
    }

    /// Ignores `Range` (and `If-Range`): always 200 with the whole body.
    static func ignoringRange(_ resource: FaultResource) -> FaultBehavior {
        FaultBehavior { request in
            var plain = request
            plain.headers.remove("Range")
            return FaultRange.respond(resource, to: plain)
        }
    }

    /// Answers a satisfiable range `a-b` with 206, but starting `shift` bytes off (the bytes and
    /// `Content-Range` agree with each other, not with the request); other requests as `serve`.
    static func wrongContentRange(_ resource: FaultResource, shift: Int = 1) -> FaultBehavior {
        FaultBehavior { request in FaultRange.respond(resource, to: request, shift: shift) }
    }

    /// Answers a satisfiable range `a-b` with 206 `multipart/byteranges` (RFC 9110 section 14.6):
    /// the range as `parts` parts (one part is legal too), each with its own `Content-Type` and
    /// `Content-Range`, between boundaries, and no `Content-Range` on the response; other requests
    /// as `serve` (a plain GET gets 200 and the whole body).
    static func multipartRanges(_ resource: FaultResource, parts: Int = 2) -> FaultBehavior {
        FaultBehavior { request in
            guard let value = request.range, case .satisfiable(let range) = FaultRange.parse(value, size: resource.size) else {
                return FaultRange.respond(resource, to: request)
            }
            let boundary = "FAULT_BOUNDARY_3d6b"
            let count = max(1, min(parts, range.count))
            var body: [FaultResponse.Segment] = []
            for index in 0..<count {
                let start = range.lowerBound + range.count * index / count
                let end = range.lowerBound + range.count * (index + 1) / count
                let head = "\r\n--\(boundary)\r\nContent-Type: \(resource.contentType)\r\n"
                    + "Content-Range: bytes \(start)-\(end - 1)/\(resource.size)\r\n\r\n"
                body += [.bytes(Data(head.utf8)), .resource(resource, start..<end)]
            }
            body.append(.bytes(Data("\r\n--\(boundary)--\r\n".utf8)))
            var headers: FaultHeaders = ["Content-Type": "multipart/byteranges; boundary=\(boundary)", "Accept-Ranges": "bytes"]
            if let etag = resource.etag { headers["ETag"] = etag }
            if let lastModified = resource.lastModified { headers["Last-Modified"] = FaultResource.httpDate(lastModified) }
            return FaultResponse(status: 206, headers: headers, body: body)
        }
    }

    /// 416 with `Content-Range: bytes */size` to every request with a `Range`; others as `serve`.
    static func rangeNotSatisfiable(_ resource: FaultResource) -> FaultBehavior {
        FaultBehavior { request in
            guard request.range != nil else { return FaultRange.respond(resource, to: request) }
            return FaultResponse(
                status: 416, headers: ["Content-Type": "text/plain", "Content-Range": "bytes */\(resource.size)"],
                body: Data("416 Range Not Satisfiable\n".utf8))
        }
    }

    // MARK: - Statuses and redirects

    /// `status` with a short text body (`"404 Not Found\n"` unless given) and extra `headers`.
    static func status(_ status: Int, headers: FaultHeaders = [:], body: String? = nil) -> FaultBehavior {
        FaultBehavior { _ in
            var all: FaultHeaders = ["Content-Type": "text/plain"]
            for field in headers.fields { all[field.name] = field.value }
            return FaultResponse(
                status: status, headers: all,
                body: Data((body ?? "\(status) \(FaultResponse.reasonPhrase(status))\n").utf8))
        }
    }

    static var notFound: FaultBehavior { status(404) }
    static var serverError: FaultBehavior { status(500) }
    static var forbidden: FaultBehavior { status(403) }
    /// 503 with `Retry-After` (seconds or an HTTP-date; nil for none).
    static func unavailable(retryAfter: String? = "1") -> FaultBehavior {
        status(503, headers: retryAfter.map { ["Retry-After": $0] } ?? [:])
    }
    /// 429 with `Retry-After` (nil for none).
    static func tooManyRequests(retryAfter: String? = "1") -> FaultBehavior {
        status(429, headers: retryAfter.map { ["Retry-After": $0] } ?? [:])
    }
    /// 408, closing the connection as servers do.
    static var requestTimeout: FaultBehavior { status(408).closingConnection() }

    /// A redirect (301, 302, 303, 307 or 308) to `location`, sent verbatim (any scheme, any host).
    static func redirect(_ status: Int = 302, to location: String) -> FaultBehavior {
        self.status(status, headers: ["Location": location], body: "redirect to \(location)\n")
    }

    // MARK: - Per attempt, raw and silent

    /// `behaviors[attempt - 1]`, the last one for every later attempt.
    static func sequence(_ behaviors: [FaultBehavior]) -> FaultBehavior {
        precondition(!behaviors.isEmpty)
        return FaultBehavior { request in
            behaviors[min(max(request.attempt, 1), behaviors.count) - 1].respond(request)
        }
    }

    /// `failure` for the first `times` attempts, then `success`.
    static func failing(_ times: Int, with failure: FaultBehavior, then success: FaultBehavior) -> FaultBehavior {
        FaultBehavior { request in (request.attempt <= times ? failure : success).respond(request) }
    }

    /// Writes exactly `bytes` (head and all), then closes.
    static func raw(_ bytes: Data) -> FaultBehavior {
        FaultBehavior { _ in
            var response = FaultResponse(status: 0)
            response.rawHead = bytes
            response.closeConnection = true
            return response
        }
    }

    static func raw(_ text: String) -> FaultBehavior { raw(Data(text.utf8)) }

    /// Reads the request and answers nothing for `seconds`, then closes.
    static func noResponse(for seconds: Double = 3600) -> FaultBehavior {
        raw(Data()).stalled(after: 0, for: seconds)
    }

    // MARK: - Modifiers

    /// Any change to the response this behaviour gives.
    func map(_ transform: @escaping @Sendable (inout FaultResponse, FaultRequest) -> Void) -> FaultBehavior {
        let respond = self.respond
        return FaultBehavior { request in
            var response = respond(request)
            transform(&response, request)
            return response
        }
    }

    /// Keeps the declared framing, writes `bytes` after the head, then closes (FIN).
    func truncated(after bytes: Int) -> FaultBehavior { map { response, _ in response.cutoff = .close(after: bytes) } }

    /// Writes `bytes` after the head, then resets the connection (RST).
    func reset(after bytes: Int) -> FaultBehavior { map { response, _ in response.cutoff = .reset(after: bytes) } }

    /// Writes `bytes` after the head, then nothing for `seconds` with the socket open, then `then`.
    /// `FaultServer.stop()` ends a stall at once.
    func stalled(after bytes: Int, for seconds: Double, then: FaultResponse.StallEnd = .close) -> FaultBehavior {
        map { response, _ in response.cutoff = .stall(after: bytes, seconds: seconds, then: then) }
    }

    /// Writes in pieces of `chunkSize` bytes with `delay` seconds after each.
    func slow(chunkSize: Int, delay: Double) -> FaultBehavior {
        map { response, _ in response.pacing = FaultResponse.Pacing(chunkSize: chunkSize, delay: delay) }
    }

    /// Declares `Content-Length: length` whatever the body is (a lying length; the server closes after).
    func declaringContentLength(_ length: Int) -> FaultBehavior {
        map { response, _ in response.framing = .contentLength(length) }
    }

    /// No `Content-Length`: the body ends when the server closes.
    func closeDelimited() -> FaultBehavior { map { response, _ in response.framing = .closeDelimited } }

    /// `Transfer-Encoding: chunked`.
    func chunked(chunkSize: Int = 16_384) -> FaultBehavior {
        map { response, _ in response.framing = .chunked(chunkSize: chunkSize) }
    }

    /// Appends `count` extra bytes (`X`) to the body. A `Content-Length` keeps declaring the
    /// length before them (sends more than it declares); close-delimited and chunked bodies carry them.
    func appendingBytes(_ count: Int) -> FaultBehavior {
        map { response, _ in
            guard response.status != 304, response.status != 204 else { return }
            if response.framing == .contentLength(nil) { response.framing = .contentLength(response.bodyLength) }
            response.body.append(.bytes(Data(repeating: UInt8(ascii: "X"), count: count)))
        }
    }

    /// `Connection: close`, and closes after the response.
    func closingConnection() -> FaultBehavior { map { response, _ in response.closeConnection = true } }

    /// Sets header `name` (replacing any of that name; nil removes it).
    func header(_ name: String, _ value: String?) -> FaultBehavior { map { response, _ in response.headers[name] = value } }
}
