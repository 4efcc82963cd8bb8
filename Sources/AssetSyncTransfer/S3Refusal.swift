import AssetSyncModel

/// What an S3-compatible store's 403 to a signed request says, in words that tell what to fix:
/// the error document's `<Code>` (S3's XML error response, at most its first 4 KiB read) mapped to
/// the setting at fault, and for a clock too far off, by how much (`RequestTime` against `ServerTime`).
enum S3Refusal {
    /// The most of a refusal's body read.
    static let bodyLimit = 4096

    /// The failure's reason for a 403 whose body began with `body`.
    static func reason(body: [UInt8]) -> String {
        let text = String(decoding: body, as: UTF8.self)
        guard let code = element("Code", in: text) else { return "HTTP 403" }
        let named = "HTTP 403 \(QuotedValue.serverValue(code))"
        switch code {
        case "SignatureDoesNotMatch":
            return "\(named): the store computed another signature; check the secret access key, and that the region is the store's"
        case "InvalidAccessKeyId":
            return "\(named): the store knows no such access key id; check the access key id (the environment or the AWS profile)"
        case "RequestTimeTooSkewed":
            if let skew = skew(in: text) {
                return "\(named): this machine's clock is \(abs(skew)) s \(skew > 0 ? "behind" : "ahead of") the store's; set the clock right (NTP)"
            }
            return "\(named): this machine's clock is too far from the store's; set the clock right (NTP)"
        case "ExpiredToken", "TokenRefreshRequired":
            return "\(named): the temporary credential has expired; get a new one (its session token with it)"
        case "InvalidToken":
            return "\(named): the session token is not valid for this access key; give the token issued with it"
        case "AccessDenied":
            return "\(named): the credentials are valid but may not read this object; check the key's or the bucket's policy"
        default:
            return named
        }
    }

    /// The text of the first `<name>` element in `text`, trimmed; nil when there is none.
    private static func element(_ name: String, in text: String) -> String? {
        guard let open = text.firstRange(of: "<\(name)>"), let close = text[open.upperBound...].firstRange(of: "</\(name)>")
        else { return nil }
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
        let value = String(text[open.upperBound..<close.lowerBound].drop(while: isSpace).reversed().drop(while: isSpace).reversed())
        return value.isEmpty ? nil : value
    }

    /// Seconds the store's time is after the request's (positive: this machine is behind), from
    /// `ServerTime` (`2013-05-24T01:00:00Z`) and `RequestTime` (`20130524T000000Z`).
    private static func skew(in text: String) -> Int64? {
        guard let server = element("ServerTime", in: text).flatMap({ UTCTime.parse($0) }),
              let requestText = element("RequestTime", in: text), requestText.utf8.count == 16
        else { return nil }
        let bytes = Array(requestText.utf8)
        let spelled = String(decoding: bytes[0..<4], as: UTF8.self) + "-" + String(decoding: bytes[4..<6], as: UTF8.self) + "-"
            + String(decoding: bytes[6..<8], as: UTF8.self) + "T" + String(decoding: bytes[9..<11], as: UTF8.self) + ":"
            + String(decoding: bytes[11..<13], as: UTF8.self) + ":" + String(decoding: bytes[13..<15], as: UTF8.self) + "Z"
        guard let request = UTCTime.parse(spelled) else { return nil }
        return server - request
    }
}
