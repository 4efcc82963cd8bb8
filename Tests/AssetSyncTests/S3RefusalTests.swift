import Testing
@testable import AssetSyncTransfer

/// A store's 403 to a signed request, worded by what its error document says is wrong: the
/// setting to fix, and for a clock too far off, by how much.
@Suite struct S3RefusalTests {
    static func document(_ code: String, extra: String = "") -> [UInt8] {
        Array("""
            <?xml version="1.0" encoding="UTF-8"?>
            <Error><Code>\(code)</Code><Message>words</Message>\(extra)<RequestId>4442587FB7D0A2F9</RequestId></Error>
            """.utf8)
    }

    @Test func aSignatureMismatchPointsAtTheSecretAndTheRegion() {
        #expect(S3Refusal.reason(body: Self.document("SignatureDoesNotMatch"))
            == "HTTP 403 SignatureDoesNotMatch: the store computed another signature; check the secret access key, and that the region is the store's")
    }

    @Test func aClockTooFarOffSaysByHowMuchAndWhichWay() {
        // S3's document for it: the request's time as signed, the server's, the most allowed.
        let late = Self.document("RequestTimeTooSkewed", extra: """
            <RequestTime>20130524T000000Z</RequestTime><ServerTime>2013-05-24T01:00:05Z</ServerTime>\
            <MaxAllowedSkewMilliseconds>900000</MaxAllowedSkewMilliseconds>
            """)
        #expect(S3Refusal.reason(body: late)
            == "HTTP 403 RequestTimeTooSkewed: this machine's clock is 3605 s behind the store's; set the clock right (NTP)")
        let early = Self.document("RequestTimeTooSkewed", extra: "<RequestTime>20130524T020000Z</RequestTime><ServerTime>2013-05-24T01:00:00Z</ServerTime>")
        #expect(S3Refusal.reason(body: early).contains("3600 s ahead of the store's"))
        #expect(S3Refusal.reason(body: Self.document("RequestTimeTooSkewed")).contains("too far from the store's"))
    }

    @Test(arguments: [
        ("InvalidAccessKeyId", "no such access key id"), ("ExpiredToken", "temporary credential has expired"),
        ("InvalidToken", "session token is not valid"), ("AccessDenied", "may not read this object"),
    ])
    func eachCodeNamesWhatToFix(_ code: String, _ words: String) {
        let reason = S3Refusal.reason(body: Self.document(code))
        #expect(reason.hasPrefix("HTTP 403 \(code): ") && reason.contains(words), "\(reason)")
    }

    @Test func aBodyWithoutACodeOrWithAHostileOneSaysNoMoreThanTheServerMay() {
        #expect(S3Refusal.reason(body: Array("<html>Forbidden</html>".utf8)) == "HTTP 403")
        #expect(S3Refusal.reason(body: []) == "HTTP 403")
        #expect(S3Refusal.reason(body: Self.document("Odd\u{1B}[31mCode")) == "HTTP 403 \"Odd\\u{1b}[31mCode\"")
    }
}
