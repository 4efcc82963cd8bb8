/// An S3-compatible store that `s3://BUCKET/KEY` URLs are fetched from: its endpoint, the region
/// its signatures name, how a bucket is addressed, and the key that signs its requests (AWS
/// Signature Version 4). Only requests to the endpoint (or a bucket's virtual host under it) are
/// signed; requests to any other origin, redirects included, go unsigned.
package struct ObjectStoreAccess: Sendable, Equatable {
    /// The endpoint's URL (`https://host[:port][/path]`); nil for AWS's own in `region`.
    package var endpoint: String?
    package var region: String
    package var addressingStyle: S3AddressingStyle
    /// Nil: requests go unsigned, as to a public bucket.
    package var credentials: AWSCredentials?

    package init(endpoint: String?, region: String = "us-east-1", addressingStyle: S3AddressingStyle = .auto, credentials: AWSCredentials?) {
        self.endpoint = endpoint
        self.region = region
        self.addressingStyle = addressingStyle
        self.credentials = credentials
    }

    /// The endpoint requests go to: the configured one, or AWS's for the region.
    package var endpointURL: String { endpoint ?? "https://s3.\(region).amazonaws.com" }

    /// Whether a request to `url` is signed: there is a key, and `url` is at the endpoint's origin
    /// or at a bucket's virtual host under it (`https://BUCKET.s3.eu-west-1.amazonaws.com`).
    package func signs(_ url: String) -> Bool {
        guard credentials != nil else { return false }
        let endpointOrigin = URLRules.origin(of: endpointURL)
        let origin = URLRules.origin(of: url)
        if origin == endpointOrigin { return true }
        let scheme = endpointOrigin.prefix { $0 != ":" } + "://"
        guard origin.hasPrefix(scheme) else { return false }
        let host = origin.dropFirst(scheme.count)
        let endpointHost = endpointOrigin.dropFirst(scheme.count)
        guard host.hasSuffix("." + endpointHost) else { return false }
        let bucket = host.dropLast(endpointHost.count + 1)
        return !bucket.contains(".") && URLRules.isBucketName(bucket.utf8)
    }
}
