import Foundation
import Testing
import AssetSyncModel
@testable import AssetSyncTransfer

/// AWS Signature Version 4 as assetsync signs S3 GETs, against botocore's own signer (the one the
/// AWS CLI and boto3 use, from `make deps`'s `.build/moto`) on the same requests, and against the
/// example of AWS's documentation.
@Suite struct SignatureV4Tests {
    static let script = MotoAuthServer.fixtures.appendingPathComponent("sigv4_botocore.py").path

    struct Case {
        var scheme = "http"
        var request: SignatureV4.Request
        var signer: SignatureV4
        var time: Int64

        var url: String {
            let query = SignatureV4.query(request.query)
            return "\(scheme)://\(request.host)\(request.path)" + (query.isEmpty ? "" : "?" + query)
        }
    }

    /// AWS's example (docs: "Signature Calculations for the Authorization Header", GET Object):
    /// 2013-05-24T00:00:00Z, its example keys, `Range: bytes=0-9`.
    static let awsExample = Case(
        request: .init(host: "examplebucket.s3.amazonaws.com", path: "/test.txt", headers: [(name: "Range", value: "bytes=0-9")]),
        signer: .init(
            credentials: .init(accessKeyID: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
            region: "us-east-1"),
        time: 1_369_353_600)

    /// Requests as assetsync makes them of a store addressed by path, on a port.
    static let cases: [Case] = [
        awsExample,
        // A resume: Range and If-Range, a temporary credential's token, a path with an escaped space and é.
        Case(
            request: .init(
                host: "127.0.0.1:9000", path: "/assets/dir/a%20b%C3%A9.bin",
                headers: [(name: "Range", value: "bytes=1048576-"), (name: "If-Range", value: "\"9b2cf535f27731c974343645a3985328-3\"")]),
            signer: .init(
                credentials: .init(accessKeyID: "AKIDTEMP", secretAccessKey: "s3cr3t/with+signs=", sessionToken: "FwoGZXIvYXdzEB//token+/="),
                region: "eu-west-1"),
            time: 1_796_244_852),
        // A listing page: a query whose values need escaping, given out of order.
        Case(
            request: .init(
                host: "127.0.0.1:9000", path: "/assets",
                query: [(name: "prefix", value: "tex tures/é"), (name: "list-type", value: "2"), (name: "continuation-token", value: "1/a+b=="),
                        (name: "max-keys", value: "1000")]),
            signer: .init(credentials: .init(accessKeyID: "AK", secretAccessKey: "SK"), region: "auto"),
            time: 1_796_300_000),
        // Runs of spaces inside and around a header's value.
        Case(
            request: .init(host: "localhost:9000", path: "/b/k", headers: [(name: "If-Range", value: "  \"a   b\"  ")]),
            signer: .init(credentials: .init(accessKeyID: "AK", secretAccessKey: "SK"), region: "us-east-1"),
            time: 0),
    ]

    @Test func theExampleOfAWSsDocumentationSignsAsDocumented() {
        let headers = Dictionary(uniqueKeysWithValues: Self.awsExample.signer.headers(for: Self.awsExample.request, at: Self.awsExample.time))
        #expect(headers["Authorization"] == """
            AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request, \
            SignedHeaders=host;range;x-amz-content-sha256;x-amz-date, \
            Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41
            """)
        #expect(headers["x-amz-date"] == "20130524T000000Z")
        #expect(headers["x-amz-security-token"] == nil)
    }

    @Test(.enabled(if: MotoAuthServer.isInstalled, "needs botocore, which `make deps` installs into .build/moto"))
    func everyRequestIsSignedAsBotocoreSignsIt() throws {
        let input = Self.cases.map { item -> [String: Any] in
            [
                "url": item.url, "headers": item.request.headers.map { [$0.name, $0.value] },
                "access_key": item.signer.credentials.accessKeyID, "secret_key": item.signer.credentials.secretAccessKey,
                "token": item.signer.credentials.sessionToken as Any, "region": item.signer.region, "time": item.time,
            ]
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: MotoAuthServer.python)
        process.arguments = [Self.script]
        let stdin = Pipe()
        let stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        try process.run()
        stdin.fileHandleForWriting.write(try JSONSerialization.data(withJSONObject: input))
        try stdin.fileHandleForWriting.close()
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0)
        let botocore = try #require(try JSONSerialization.jsonObject(with: output) as? [[String: String]])
        try #require(botocore.count == Self.cases.count)
        for (item, theirs) in zip(Self.cases, botocore) {
            let ours = Dictionary(uniqueKeysWithValues: item.signer.headers(for: item.request, at: item.time).map { ($0.name.lowercased(), $0.value) })
            #expect(ours == theirs, "\(item.url)")
        }
    }

    @Test func aSessionTokenIsSentAndSigned() {
        let item = Self.cases[1]
        let headers = item.signer.headers(for: item.request, at: item.time)
        #expect(headers.contains { $0.name == "x-amz-security-token" && $0.value == "FwoGZXIvYXdzEB//token+/=" })
        let authorization = headers.first { $0.name == "Authorization" }?.value ?? ""
        #expect(authorization.contains("SignedHeaders=host;if-range;range;x-amz-content-sha256;x-amz-date;x-amz-security-token,"))
    }

    @Test func theQueryIsSortedAndEscapedButForTheUnreservedCharacters() {
        #expect(SignatureV4.query(Self.cases[2].request.query)
            == "continuation-token=1%2Fa%2Bb%3D%3D&list-type=2&max-keys=1000&prefix=tex%20tures%2F%C3%A9")
    }
}
