import Foundation
import Glibc

/// One accepted connection of a `FaultServer`: reads requests (keep-alive, pipelined or not),
/// asks the route's behaviour, and writes its response with the fault it asks for. Every wait
/// also watches the server's wake pipe, so `stop()` ends stalls, slow writes and idle waits at once.
struct FaultConnection {
    let fd: Int32
    let id: Int
    let core: FaultServer.Core

    private enum End { case keepOpen, close, reset, abort }

    private static let maxHead = 64 * 1024
    private static let maxBody = 16 << 20

    func run() {
        var buffer = Data()
        var served = 0
        var end = End.close
        loop: while true {
            guard let head = readHead(&buffer) else {
                end = buffer.count > Self.maxHead ? reply(431) : .abort
                break
            }
            guard let parsed = FaultRequest.parseHead(head) else { end = reply(400); break }
            let (path, query) = FaultRequest.splitTarget(parsed.target)
            served += 1
            var request = FaultRequest(
                method: parsed.method, target: parsed.target, path: path, query: query, version: parsed.version,
                headers: parsed.headers, body: Data(), attempt: 0, connectionID: id, requestOnConnection: served,
                time: Date(), instant: .now)
            var closeAfter = false
            if let length = parsed.headers["Content-Length"] {
                guard let count = Int(length), count >= 0, count <= Self.maxBody else { end = reply(400); break }
                if parsed.headers["Expect"]?.lowercased() == "100-continue", buffer.count < count {
                    guard send(Data("HTTP/1.1 100 Continue\r\n\r\n".utf8)) else { end = .abort; break }
                }
                guard let body = readBody(&buffer, count: count) else { end = .abort; break }
                request.body = body
            } else if parsed.headers["Transfer-Encoding"] != nil {
                closeAfter = true  // request bodies in chunks are not needed: answer, then close
            }
            let (index, behavior) = core.record(&request)
            let response = behavior.respond(request)
            core.update(index) { $0.responseStatus = response.rawHead == nil ? response.status : nil }
            let (result, completed) = write(response, for: request, closing: closeAfter) { sent in
                core.update(index) { $0.bodyBytesSent = sent }
            }
            core.update(index) {
                $0.responseEnded = true
                $0.completed = completed
            }
            end = result
            if end != .keepOpen { break loop }
        }
        switch end {
        case .keepOpen, .close: closeGracefully()
        case .reset: LoopbackSocket.closeWithReset(fd)
        case .abort: close(fd)
        }
    }

    // MARK: - Reading

    /// The next request head (without its empty line), or nil at end of stream, on error, when
    /// idle too long, when stopping, or past `maxHead` bytes.
    private func readHead(_ buffer: inout Data) -> Data? {
        while true {
            // Empty lines before a request line are allowed (RFC 9112 §2.2).
            while let first = buffer.first, first == 13 || first == 10 { buffer.removeFirst() }
            if let end = headEnd(buffer) {
                let head = buffer[buffer.startIndex..<end.lowerBound]
                buffer = Data(buffer[end.upperBound...])
                return Data(head)
            }
            if buffer.count > Self.maxHead { return nil }
            guard receive(into: &buffer, timeout: core.idleTimeout) else { return nil }
        }
    }

    /// CRLF CRLF, or LF LF from a sloppy client, whichever comes first.
    private func headEnd(_ buffer: Data) -> Range<Data.Index>? {
        let crlf = buffer.range(of: Data("\r\n\r\n".utf8))
        let lf = buffer.range(of: Data("\n\n".utf8))
        switch (crlf, lf) {
        case let (a?, b?): return a.lowerBound <= b.lowerBound ? a : b
        case let (a, b): return a ?? b
        }
    }

    private func readBody(_ buffer: inout Data, count: Int) -> Data? {
        while buffer.count < count {
            guard receive(into: &buffer, timeout: core.idleTimeout) else { return nil }
        }
        let body = Data(buffer.prefix(count))
        buffer = Data(buffer.dropFirst(count))
        return body
    }

    /// Appends what arrives within `timeout` seconds; false at end of stream, error, timeout or stop.
    private func receive(into buffer: inout Data, timeout: Double) -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        let deadline = ContinuousClock.now + .seconds(timeout)
        while true {
            let n = recv(fd, &chunk, chunk.count, 0)
            if n > 0 { buffer.append(contentsOf: chunk[0..<n]); return true }
            if n == 0 { return false }
            guard errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR else { return false }
            guard wait(for: Int16(POLLIN), until: deadline) else { return false }
        }
    }

    // MARK: - Writing

    /// A short error response when a request cannot be read; the connection then closes.
    private func reply(_ status: Int) -> End {
        let text = "\(status) \(FaultResponse.reasonPhrase(status))\n"
        let head = "HTTP/1.1 \(status) \(FaultResponse.reasonPhrase(status))\r\nContent-Type: text/plain\r\n"
            + "Content-Length: \(text.utf8.count)\r\nConnection: close\r\n\r\n"
        _ = send(Data((head + text).utf8))
        return .close
    }

    /// Writes `response`, reporting the bytes written after the head as they go; returns how the
    /// connection ends and whether the whole response was written.
    private func write(
        _ response: FaultResponse, for request: FaultRequest, closing: Bool, progress: (Int) -> Void
    ) -> (End, Bool) {
        let bodiless = request.method == "HEAD" || (100..<200).contains(response.status)
            || response.status == 204 || response.status == 304
        let closing = closing || response.mustClose || request.wantsClose
        guard send(response.rawHead ?? head(of: response, bodiless: bodiless, closing: closing)) else { return (.abort, false) }

        var pieces = BodyPieces(segments: bodiless ? [] : response.body, framing: bodiless ? .contentLength(nil) : response.framing)
        var limit: Int? = switch response.cutoff {
        case .close(let after)?, .reset(let after)?, .stall(let after, _, _)?: after
        case nil: nil
        }
        var sent = 0
        var cut = false
        var stalled = false
        pieceLoop: while let piece = pieces.next() {
            var offset = piece.startIndex
            while offset < piece.endIndex {
                if let reached = limit, sent >= reached {
                    if case .stall(_, let seconds, .resume)? = response.cutoff, !stalled {
                        guard pause(seconds) else { return (.abort, false) }
                        stalled = true
                        limit = nil
                        continue
                    }
                    cut = true
                    break pieceLoop
                }
                var count = piece.endIndex - offset
                if let reached = limit { count = min(count, reached - sent) }
                if let pacing = response.pacing { count = min(count, max(1, pacing.chunkSize)) }
                guard send(piece[offset..<(offset + count)]) else { return (.abort, false) }
                sent += count
                offset += count
                progress(sent)
                if let pacing = response.pacing, pacing.delay > 0 {
                    guard pause(pacing.delay) else { return (.abort, false) }
                }
            }
        }
        switch response.cutoff {
        case nil: return (closing ? .close : .keepOpen, true)
        case .close?: return (.close, !cut)
        case .reset?: return (.reset, !cut)
        case .stall(_, let seconds, let then)?:
            if !stalled { guard pause(seconds) else { return (.abort, false) } }
            return (then == .reset ? .reset : .close, !cut)
        }
    }

    private func head(of response: FaultResponse, bodiless: Bool, closing: Bool) -> Data {
        var headers = response.headers
        if !headers.contains("Date") { headers.add("Date", FaultResource.httpDate(Date())) }
        if !headers.contains("Server") { headers.add("Server", "FaultServer") }
        let noFraming = (100..<200).contains(response.status) || response.status == 204 || response.status == 304
        if !noFraming {
            switch response.framing {
            case .contentLength(let declared):
                if !headers.contains("Content-Length") { headers.add("Content-Length", String(declared ?? response.bodyLength)) }
            case .chunked:
                if !headers.contains("Transfer-Encoding") { headers.add("Transfer-Encoding", "chunked") }
            case .closeDelimited:
                break
            }
        }
        if closing && !headers.contains("Connection") { headers.add("Connection", "close") }
        var text = "HTTP/1.1 \(response.status) \(response.reason)\r\n"
        for field in headers.fields { text += "\(field.name): \(field.value)\r\n" }
        return Data((text + "\r\n").utf8)
    }

    /// Writes all of `data`; false if the peer went away, no progress for `idleTimeout`, or stopping.
    private func send(_ data: Data) -> Bool {
        data.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) in
            var offset = 0
            while offset < bytes.count {
                let n = Glibc.send(fd, bytes.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
                if n > 0 { offset += n; continue }
                guard n < 0, errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR else { return false }
                guard wait(for: Int16(POLLOUT), until: .now + .seconds(core.idleTimeout)) else { return false }
            }
            return !core.stopping
        }
    }

    /// Waits `seconds` with the socket open; false if the server is stopping.
    private func pause(_ seconds: Double) -> Bool {
        var wakeEntry = pollfd(fd: core.wake.read, events: Int16(POLLIN), revents: 0)
        let deadline = ContinuousClock.now + .seconds(seconds)
        while ContinuousClock.now < deadline {
            let ready = poll(&wakeEntry, 1, Self.milliseconds(until: deadline))
            if ready > 0 { return false }
            if ready < 0 && errno != EINTR { return false }
        }
        return !core.stopping
    }

    /// Waits until the socket is ready for `events`; false on timeout or stop.
    private func wait(for events: Int16, until deadline: ContinuousClock.Instant) -> Bool {
        while true {
            var fds = [pollfd(fd: fd, events: events, revents: 0), pollfd(fd: core.wake.read, events: Int16(POLLIN), revents: 0)]
            guard ContinuousClock.now < deadline else { return false }
            let ready = poll(&fds, 2, Self.milliseconds(until: deadline))
            if ready < 0 && errno == EINTR { continue }
            if ready < 0 || fds[1].revents != 0 { return false }
            if ready > 0 { return true }
        }
    }

    /// A poll(2) timeout reaching `deadline` (rounded up, at least 1 ms).
    private static func milliseconds(until deadline: ContinuousClock.Instant) -> Int32 {
        let left = (deadline - ContinuousClock.now).components
        return Int32(clamping: max(1, left.seconds * 1000 + left.attoseconds / 1_000_000_000_000_000 + 1))
    }

    /// FIN, then read what the peer still sends (briefly) so that closing does not turn into a reset.
    private func closeGracefully() {
        shutdown(fd, Int32(SHUT_WR))
        var scratch = Data()
        let deadline = ContinuousClock.now + .seconds(2)
        while !core.stopping, ContinuousClock.now < deadline {
            scratch.removeAll(keepingCapacity: true)
            guard receive(into: &scratch, timeout: 2) else { break }
        }
        close(fd)
    }
}

/// The body as wire pieces: resource ranges read 256 KiB at a time, chunk framing applied.
private struct BodyPieces: IteratorProtocol {
    private var segments: [FaultResponse.Segment]
    private let framing: FaultResponse.Framing
    private var segmentIndex = 0
    private var offset = 0
    private var finished = false

    init(segments: [FaultResponse.Segment], framing: FaultResponse.Framing) {
        self.segments = segments
        self.framing = framing
    }

    mutating func next() -> Data? {
        guard case .chunked(let chunkSize) = framing else { return nextPayload(limit: 256 * 1024) }
        if finished { return nil }
        guard let payload = nextPayload(limit: max(1, chunkSize)) else {
            finished = true
            return Data("0\r\n\r\n".utf8)
        }
        var chunk = Data(String(payload.count, radix: 16).utf8)
        chunk.append(contentsOf: [13, 10])
        chunk.append(payload)
        chunk.append(contentsOf: [13, 10])
        return chunk
    }

    /// Up to `limit` payload bytes, never empty; nil after the last.
    private mutating func nextPayload(limit: Int) -> Data? {
        var out = Data()
        while out.count < limit, segmentIndex < segments.count {
            let segment = segments[segmentIndex]
            let want = min(limit - out.count, segment.count - offset)
            switch segment {
            case .bytes(let data):
                let start = data.startIndex + offset
                out.append(data[start..<(start + want)])
            case .resource(let resource, let range):
                out.append(resource.bytes(in: (range.lowerBound + offset)..<(range.lowerBound + offset + want)))
            }
            offset += want
            if offset >= segment.count {
                segmentIndex += 1
                offset = 0
            }
        }
        return out.isEmpty ? nil : out
    }
}
