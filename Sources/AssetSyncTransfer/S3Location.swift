package import AssetSyncModel

/// An object in an S3-compatible store, named `s3://BUCKET/KEY` as the AWS tools name it, and the
/// URL a request for it goes to under an `ObjectStoreAccess`: AWS's regional endpoint, or the one
/// configured; the bucket in the host (virtual-hosted) or in the path.
package struct S3Location: Equatable, Sendable {
    package var bucket: String
    /// The object's key as stored (not percent-encoded); empty for the bucket itself (a listing).
    package var key: String

    package init(bucket: String, key: String) {
        self.bucket = bucket
        self.key = key
    }

    /// `s3://BUCKET/KEY` (the key percent-encoded as any URL's path; a query or fragment is no part
    /// of it), else nil: a bucket name as S3 allows one (`URLRules.isBucketName`).
    package init?(_ url: String) {
        guard let (location, _) = Self.parse(url) else { return nil }
        self = location
    }

    /// `url`'s object and its query (with its "?"; empty without one).
    private static func parse(_ url: String) -> (location: S3Location, query: Substring)? {
        guard URLRules.isObjectStoreURL(url), let parts = try? URLRules.parse(url, field: "url") else { return nil }
        let location = S3Location(bucket: parts.authority, key: ObjectStoreAccess.decoded(parts.path.dropFirst()))
        return (location, parts.rest.prefix { $0 != "#" })
    }

    /// Where a request for this object goes, as it must be signed: the URL, its `Host`, its path.
    package struct Target: Equatable, Sendable {
        package var url: String
        package var host: String
        package var path: String
    }

    /// The request's target at `store`. Without an endpoint, AWS's for the region. `auto` puts the
    /// bucket in the host for AWS when the name allows it (no dot, which TLS certificates would not
    /// cover), and in the path for any other endpoint (MinIO, Ceph and local stores need it; R2 and
    /// GCS take it).
    package func target(at store: ObjectStoreAccess) -> Target {
        let endpoint = store.endpointURL
        let scheme = endpoint.prefix { $0 != ":" }
        let afterScheme = endpoint.dropFirst(scheme.count + 3)
        let authority = String(afterScheme.prefix { $0 != "/" })
        let basePath = afterScheme.dropFirst(authority.count).reversed().drop { $0 == "/" }.reversed()
        let virtual = switch store.addressingStyle {
        case .virtual: true
        case .path: false
        case .auto: store.endpoint == nil && !bucket.contains(".")
        }
        let keyPath = key.split(separator: "/", omittingEmptySubsequences: false).map { SignatureV4.encode(String($0)) }.joined(separator: "/")
        let host = virtual ? "\(bucket).\(authority)" : authority
        let path = String(basePath) + (virtual ? "/" + keyPath : "/\(bucket)" + (key.isEmpty ? "" : "/" + keyPath))
        return Target(url: "\(scheme)://\(host)\(path)", host: host, path: path)
    }

    /// The URL a request for the manifest URL `url` (`s3://BUCKET/KEY`, the key percent-encoded as
    /// any URL's path, perhaps with a query) goes to at `store`; nil when `url` is no such URL.
    package static func requestURL(for url: String, at store: ObjectStoreAccess) -> String? {
        guard let (location, query) = parse(url) else { return nil }
        return location.target(at: store).url + query
    }
}
