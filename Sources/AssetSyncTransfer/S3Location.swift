/// An object in an S3-compatible store, named `s3://BUCKET/KEY` as the AWS tools name it, and the
/// URL a request for it goes to under `S3Settings`: AWS's regional endpoint, or the one configured;
/// the bucket in the host (virtual-hosted) or in the path.
package struct S3Location: Equatable, Sendable {
    package var bucket: String
    /// The object's key as stored (not percent-encoded); empty for the bucket itself (a listing).
    package var key: String

    package init(bucket: String, key: String) {
        self.bucket = bucket
        self.key = key
    }

    /// `s3://BUCKET/KEY`, else nil: a bucket name as S3 allows one (3 to 63 lowercase letters,
    /// digits, dots and hyphens, starting and ending with a letter or digit).
    package init?(_ url: String) {
        guard url.hasPrefix("s3://") else { return nil }
        let rest = url.dropFirst("s3://".count)
        let bucket = rest.prefix { $0 != "/" }
        guard Self.isBucketName(bucket) else { return nil }
        self.bucket = String(bucket)
        key = String(rest.dropFirst(bucket.count).drop { $0 == "/" })
    }

    static func isBucketName(_ name: some StringProtocol) -> Bool {
        let bytes = Array(name.utf8)
        func alphanumeric(_ byte: UInt8) -> Bool {
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
        }
        guard (3...63).contains(bytes.count), alphanumeric(bytes.first!), alphanumeric(bytes.last!) else { return false }
        return bytes.allSatisfy { alphanumeric($0) || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "-") }
    }

    /// Where a request for this object goes, as it must be signed: the URL, its `Host`, its path.
    package struct Target: Equatable, Sendable {
        package var url: String
        package var host: String
        package var path: String
    }

    /// The request's target under `settings`. Without an endpoint, AWS's for the region
    /// (`us-east-1` when none is set). `auto` puts the bucket in the host for AWS when the name
    /// allows it (no dot, which TLS certificates would not cover), and in the path for any other
    /// endpoint (MinIO, Ceph and local stores need it; R2 and GCS take it).
    package func target(under settings: S3Settings) -> Target {
        let region = settings.region ?? "us-east-1"
        let endpoint = settings.endpoint ?? "https://s3.\(region).amazonaws.com"
        let scheme = endpoint.prefix { $0 != ":" }
        let afterScheme = endpoint.dropFirst(scheme.count + 3)
        let authority = String(afterScheme.prefix { $0 != "/" })
        let basePath = afterScheme.dropFirst(authority.count).reversed().drop { $0 == "/" }.reversed()
        let virtual = switch settings.addressingStyle {
        case .virtual: true
        case .path: false
        case .auto: settings.endpoint == nil && !bucket.contains(".")
        }
        let keyPath = key.split(separator: "/", omittingEmptySubsequences: false).map { SignatureV4.encode(String($0)) }.joined(separator: "/")
        let host = virtual ? "\(bucket).\(authority)" : authority
        let path = String(basePath) + (virtual ? "/" + keyPath : "/\(bucket)" + (key.isEmpty ? "" : "/" + keyPath))
        return Target(url: "\(scheme)://\(host)\(path)", host: host, path: path)
    }
}
