import Testing
import AssetSyncModel
@testable import AssetSyncTransfer

/// `s3://BUCKET/KEY` and the URL a request for it goes to: AWS's regional endpoint with the bucket
/// in the host, or a configured endpoint with the bucket in the path; keys escaped as signed.
@Suite struct S3LocationTests {
    static func settings(endpoint: String? = nil, region: String = "us-east-1", style: S3AddressingStyle = .auto) -> ObjectStoreAccess {
        ObjectStoreAccess(endpoint: endpoint, region: region, addressingStyle: style, credentials: nil)
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
        let target = S3Location(bucket: "assets", key: "dir/a b+é.bin").target(at: Self.settings(region: "eu-west-1"))
        #expect(target == .init(
            url: "https://assets.s3.eu-west-1.amazonaws.com/dir/a%20b%2B%C3%A9.bin", host: "assets.s3.eu-west-1.amazonaws.com",
            path: "/dir/a%20b%2B%C3%A9.bin"))
        #expect(S3Location(bucket: "assets", key: "k").target(at: Self.settings()).host == "assets.s3.us-east-1.amazonaws.com")
    }

    @Test func aBucketWithADotGoesInThePathEvenOnAWS() {
        let target = S3Location(bucket: "my.assets", key: "k").target(at: Self.settings(region: "us-east-2"))
        #expect(target.url == "https://s3.us-east-2.amazonaws.com/my.assets/k")
    }

    @Test func aConfiguredEndpointTakesTheBucketInItsPathUnlessToldOtherwise() {
        let minio = S3Location(bucket: "assets", key: "a/b.bin").target(at: Self.settings(endpoint: "http://127.0.0.1:9000"))
        #expect(minio == .init(url: "http://127.0.0.1:9000/assets/a/b.bin", host: "127.0.0.1:9000", path: "/assets/a/b.bin"))
        let based = S3Location(bucket: "assets", key: "").target(at: Self.settings(endpoint: "https://gw.example/storage/"))
        #expect(based.url == "https://gw.example/storage/assets")
        let virtual = S3Location(bucket: "assets", key: "k").target(at: Self.settings(endpoint: "https://r2.example", style: .virtual))
        #expect(virtual.url == "https://assets.r2.example/k" && virtual.host == "assets.r2.example")
        let path = S3Location(bucket: "assets", key: "k").target(at: Self.settings(style: .path))
        #expect(path.url == "https://s3.us-east-1.amazonaws.com/assets/k")
    }

    @Test func aManifestsS3URLGoesToTheStoreWithItsKeyDecodedThenEscapedAsSigned() {
        let store = Self.settings(endpoint: "http://127.0.0.1:9000")
        #expect(S3Location.requestURL(for: "s3://assets/dir/a%20b%2Bc.bin", at: store) == "http://127.0.0.1:9000/assets/dir/a%20b%2Bc.bin")
        #expect(S3Location.requestURL(for: "S3://assets/k?versionId=3#part", at: store) == "http://127.0.0.1:9000/assets/k?versionId=3")
        #expect(S3Location.requestURL(for: "s3://assets/k", at: Self.settings(region: "eu-west-1"))
            == "https://assets.s3.eu-west-1.amazonaws.com/k")
        #expect(S3Location.requestURL(for: "https://assets/k", at: store) == nil)
    }

    @Test func onlyTheEndpointAndItsBucketsVirtualHostsAreSigned() {
        let key = AWSCredentials(accessKeyID: "AKIA", secretAccessKey: "s")
        let aws = ObjectStoreAccess(endpoint: nil, region: "eu-west-1", credentials: key)
        #expect(aws.signs("https://s3.eu-west-1.amazonaws.com/assets/k"))
        #expect(aws.signs("https://assets.s3.eu-west-1.amazonaws.com/k"))
        #expect(aws.signs("HTTPS://Assets.S3.EU-West-1.amazonaws.com:443/k"))
        #expect(!aws.signs("https://a.b.s3.eu-west-1.amazonaws.com/k"), "a name with a dot is no virtual host")
        #expect(!aws.signs("http://assets.s3.eu-west-1.amazonaws.com/k"), "another scheme is another origin")
        #expect(!aws.signs("https://s3.eu-west-1.amazonaws.com.evil.example/k"))
        #expect(!aws.signs("https://evil-s3.eu-west-1.amazonaws.com/k"))
        #expect(!aws.signs("https://s3.us-east-1.amazonaws.com/assets/k"), "another region's endpoint")
        let minio = ObjectStoreAccess(endpoint: "http://127.0.0.1:9000", credentials: key)
        #expect(minio.signs("http://127.0.0.1:9000/assets/k") && !minio.signs("http://127.0.0.1:9001/assets/k"))
        #expect(!ObjectStoreAccess(endpoint: nil, credentials: nil).signs("https://s3.us-east-1.amazonaws.com/a/k"), "no key, no signature")
    }
}
