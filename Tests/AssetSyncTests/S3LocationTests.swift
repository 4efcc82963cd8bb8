import Testing
import AssetSyncModel
@testable import AssetSyncTransfer

/// `s3://BUCKET/KEY` and the URL a request for it goes to: AWS's regional endpoint with the bucket
/// in the host, or a configured endpoint with the bucket in the path; keys escaped as signed.
@Suite struct S3LocationTests {
    static func settings(endpoint: String? = nil, region: String? = nil, style: S3Settings.AddressingStyle = .auto) -> S3Settings {
        S3Settings(credentials: nil, region: region, endpoint: endpoint, addressingStyle: style, profile: "default")
    }

    @Test func anS3URLNamesItsBucketAndKey() {
        #expect(S3Location("s3://assets/textures/a b.png") == S3Location(bucket: "assets", key: "textures/a b.png"))
        #expect(S3Location("s3://assets") == S3Location(bucket: "assets", key: ""))
        #expect(S3Location("s3://assets/") == S3Location(bucket: "assets", key: ""))
    }

    @Test(arguments: ["https://assets/x", "s3://", "s3://ab/x", "s3://Assets/x", "s3://-assets/x", "s3://as_sets/x", "s3://a\(String(repeating: "b", count: 63))/x"])
    func whatIsNoBucketNameIsRefused(_ url: String) {
        #expect(S3Location(url) == nil)
    }

    @Test func awsPutsTheBucketInTheHostOfTheRegionsEndpoint() {
        let target = S3Location(bucket: "assets", key: "dir/a b+é.bin").target(under: Self.settings(region: "eu-west-1"))
        #expect(target == .init(
            url: "https://assets.s3.eu-west-1.amazonaws.com/dir/a%20b%2B%C3%A9.bin", host: "assets.s3.eu-west-1.amazonaws.com",
            path: "/dir/a%20b%2B%C3%A9.bin"))
        #expect(S3Location(bucket: "assets", key: "k").target(under: Self.settings()).host == "assets.s3.us-east-1.amazonaws.com")
    }

    @Test func aBucketWithADotGoesInThePathEvenOnAWS() {
        let target = S3Location(bucket: "my.assets", key: "k").target(under: Self.settings(region: "us-east-2"))
        #expect(target.url == "https://s3.us-east-2.amazonaws.com/my.assets/k")
    }

    @Test func aConfiguredEndpointTakesTheBucketInItsPathUnlessToldOtherwise() {
        let minio = S3Location(bucket: "assets", key: "a/b.bin").target(under: Self.settings(endpoint: "http://127.0.0.1:9000"))
        #expect(minio == .init(url: "http://127.0.0.1:9000/assets/a/b.bin", host: "127.0.0.1:9000", path: "/assets/a/b.bin"))
        let based = S3Location(bucket: "assets", key: "").target(under: Self.settings(endpoint: "https://gw.example/storage/"))
        #expect(based.url == "https://gw.example/storage/assets")
        let virtual = S3Location(bucket: "assets", key: "k").target(under: Self.settings(endpoint: "https://r2.example", style: .virtual))
        #expect(virtual.url == "https://assets.r2.example/k" && virtual.host == "assets.r2.example")
        let path = S3Location(bucket: "assets", key: "k").target(under: Self.settings(style: .path))
        #expect(path.url == "https://s3.us-east-1.amazonaws.com/assets/k")
    }
}
