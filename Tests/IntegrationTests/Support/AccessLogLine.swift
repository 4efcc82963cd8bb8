import Foundation

/// One request in `NginxServer`'s access log. Request headers that were absent (or empty) are `nil`.
struct AccessLogLine: Sendable, Equatable {
    /// The request line, e.g. `GET /a.bin HTTP/1.1`.
    var request: String
    var method: String
    /// The request target as sent, with its query (`$request_uri`).
    var uri: String
    var status: Int
    /// All bytes sent to the client, headers included.
    var bytesSent: Int
    var bodyBytesSent: Int
    var range: String?
    var ifRange: String?
    var ifNoneMatch: String?
    var ifModifiedSince: String?
    var authorization: String?
    var userAgent: String?
    var host: String?
    /// The `Content-Range` nginx answered with.
    var contentRange: String?
    /// Whether nginx sent the whole response (`$request_completion` is `OK`); false when the client left early.
    var completed: Bool
    /// nginx's serial number of the connection: equal numbers mean one reused connection.
    var connection: Int
    /// The request's position on its connection, from 1.
    var connectionRequests: Int
    /// Seconds from the first byte read to the last byte written.
    var requestTime: Double
    var remotePort: Int?
    /// The line as nginx wrote it.
    var raw: String

    /// `uri` without its query.
    var path: String { String(uri.prefix { $0 != "?" }) }

    private struct Fields: Decodable {
        var request, method, uri: String
        var status, bytes_sent, body_bytes_sent: Int
        var range, if_range, if_none_match, if_modified_since, authorization, user_agent, host: String
        var content_range, completion, remote_port: String
        var connection, connection_requests: Int
        var request_time: Double
    }

    /// Parses one line of the `harness` log format (JSON); nil for anything else.
    init?(json line: String) {
        guard let fields = try? JSONDecoder().decode(Fields.self, from: Data(line.utf8)) else { return nil }
        func present(_ value: String) -> String? { value.isEmpty ? nil : value }
        request = fields.request
        method = fields.method
        uri = fields.uri
        status = fields.status
        bytesSent = fields.bytes_sent
        bodyBytesSent = fields.body_bytes_sent
        range = present(fields.range)
        ifRange = present(fields.if_range)
        ifNoneMatch = present(fields.if_none_match)
        ifModifiedSince = present(fields.if_modified_since)
        authorization = present(fields.authorization)
        userAgent = present(fields.user_agent)
        host = present(fields.host)
        contentRange = present(fields.content_range)
        completed = fields.completion == "OK"
        connection = fields.connection
        connectionRequests = fields.connection_requests
        requestTime = fields.request_time
        remotePort = Int(fields.remote_port)
        raw = line
    }
}
