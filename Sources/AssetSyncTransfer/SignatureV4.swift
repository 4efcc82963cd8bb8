package import AssetSyncModel
import AssetSyncSystem

/// AWS Signature Version 4 in the `Authorization` header, as S3 and the stores that speak its API
/// (R2, GCS's XML API, MinIO, Ceph) check it: a canonical form of the request (method, path as
/// sent, sorted query, the signed headers), hashed and signed with a key derived from the secret
/// for one day, region and service. Signed by assetsync with libcrypto rather than by libcurl
/// 7.88's `CURLOPT_AWS_SIGV4`, whose later releases fixed how it signs query strings and headers;
/// proven against botocore's signer on the same requests (`SignatureV4Tests`). GET requests only:
/// the payload is empty.
package struct SignatureV4: Sendable {
    /// A request as it goes on the wire.
    package struct Request: Sendable {
        package var method = "GET"
        /// The `Host` header: the host, and the port when the URL names one.
        package var host: String
        /// The path as sent, percent-encoded already (S3 signs it as it is, unnormalized).
        package var path: String
        /// The query's names and values, decoded; sent as `SignatureV4.query(_:)` spells them.
        package var query: [(name: String, value: String)]
        /// Headers to sign besides those the signature adds (`Range`, `If-Range`).
        package var headers: [(name: String, value: String)]

        package init(
            method: String = "GET", host: String, path: String, query: [(name: String, value: String)] = [],
            headers: [(name: String, value: String)] = []
        ) {
            self.method = method
            self.host = host
            self.path = path
            self.query = query
            self.headers = headers
        }
    }

    package var credentials: AWSCredentials
    package var region: String
    package var service = "s3"

    package init(credentials: AWSCredentials, region: String, service: String = "s3") {
        self.credentials = credentials
        self.region = region
        self.service = service
    }

    /// The SHA-256 of an empty payload, which a GET signs.
    static let emptyPayloadHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

    /// The headers that sign `request` at `seconds` since the epoch: `x-amz-date`,
    /// `x-amz-content-sha256`, `x-amz-security-token` with a session token, and `Authorization`.
    package func headers(for request: Request, at seconds: Int64) -> [(name: String, value: String)] {
        let time = Self.amzDate(seconds)
        var added = [(name: "x-amz-date", value: time), (name: "x-amz-content-sha256", value: Self.emptyPayloadHash)]
        if let token = credentials.sessionToken { added.append((name: "x-amz-security-token", value: token)) }
        let signed = Self.canonicalHeaders([(name: "host", value: request.host)] + request.headers + added)
        let canonical = Self.canonicalRequest(request, headers: signed)
        let scope = "\(time.prefix(8))/\(region)/\(service)/aws4_request"
        let stringToSign = "AWS4-HMAC-SHA256\n\(time)\n\(scope)\n\(Self.hexSHA256(canonical))"
        var key = HMACSHA256.mac(key: Array("AWS4\(credentials.secretAccessKey)".utf8), String(time.prefix(8)))
        for part in [region, service, "aws4_request"] { key = HMACSHA256.mac(key: key, part) }
        let signature = Self.hex(HMACSHA256.mac(key: key, stringToSign))
        let names = signed.map(\.name).joined(separator: ";")
        return added + [(
            name: "Authorization",
            value: "AWS4-HMAC-SHA256 Credential=\(credentials.accessKeyID)/\(scope), SignedHeaders=\(names), Signature=\(signature)"
        )]
    }

    /// The canonical request the signature hashes (AWS's "CanonicalRequest"), given the canonical headers.
    static func canonicalRequest(_ request: Request, headers: [(name: String, value: String)]) -> String {
        [
            request.method, request.path, query(request.query),
            headers.map { "\($0.name):\($0.value)\n" }.joined(), headers.map(\.name).joined(separator: ";"), emptyPayloadHash,
        ].joined(separator: "\n")
    }

    /// The query as it is sent and signed: each name and value percent-encoded but for the
    /// unreserved characters, sorted by name, then by value.
    package static func query(_ items: [(name: String, value: String)]) -> String {
        items.map { (name: encode($0.name), value: encode($0.value)) }
            .sorted { ($0.name, $0.value) < ($1.name, $1.value) }
            .map { "\($0.name)=\($0.value)" }.joined(separator: "&")
    }

    /// Names in lowercase, values trimmed with their runs of spaces made one, sorted by name; the
    /// values of a name given twice joined by commas.
    static func canonicalHeaders(_ headers: [(name: String, value: String)]) -> [(name: String, value: String)] {
        var byName: [String: [String]] = [:]
        for header in headers {
            let value = header.value.split(whereSeparator: { $0 == " " || $0 == "\t" }).joined(separator: " ")
            byName[header.name.lowercased(), default: []].append(value)
        }
        return byName.keys.sorted().map { (name: $0, value: byName[$0]!.joined(separator: ",")) }
    }

    /// `text`'s UTF-8 bytes, each but `A–Z a–z 0–9 - _ . ~` as `%XX` in uppercase hex.
    static func encode(_ text: String) -> String {
        var encoded = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "~"):
                encoded.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                encoded += "%" + HexDigits.padded(byte, width: 2).uppercased()
            }
        }
        return encoded
    }

    /// `seconds` since the epoch as `YYYYMMDDTHHMMSSZ`.
    static func amzDate(_ seconds: Int64) -> String {
        String(UTCTime.format(seconds).filter { $0 != "-" && $0 != ":" })
    }

    private static func hexSHA256(_ text: String) -> String {
        Array(text.utf8).withUnsafeBytes { SHA256.digest(of: $0).hex }
    }

    private static func hex(_ bytes: [UInt8]) -> String { bytes.map { HexDigits.padded($0, width: 2) }.joined() }
}
