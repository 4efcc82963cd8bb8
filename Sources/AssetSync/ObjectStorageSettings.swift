import AssetSyncModel

/// The S3-compatible store (AWS S3, R2, GCS's XML API, MinIO, Ceph, Wasabi) that `s3://BUCKET/KEY`
/// URLs are fetched from, and whose requests are signed with AWS Signature Version 4.
///
/// What is left nil is found as the AWS tools find it, in ``environment``: `AWS_ENDPOINT_URL_S3`
/// and `AWS_ENDPOINT_URL`; `AWS_REGION` and `AWS_DEFAULT_REGION`; `AWS_ACCESS_KEY_ID`,
/// `AWS_SECRET_ACCESS_KEY` and `AWS_SESSION_TOKEN`; then the profile (`AWS_PROFILE`, else
/// `default`) in `~/.aws/credentials` and `~/.aws/config` (or `AWS_SHARED_CREDENTIALS_FILE` and
/// `AWS_CONFIG_FILE`). They are read only when the manifest, or its URL, names a store, or an
/// endpoint is given. The key is sent only to the endpoint (or a bucket's virtual host under it),
/// never to a mirror, a redirect's target or another host.
public struct ObjectStorageSettings: Sendable, Equatable {
    /// How a request names the bucket.
    public enum AddressingStyle: String, Sendable, CaseIterable {
        /// In the host for AWS, when the bucket's name allows it; in the path for any other endpoint.
        case auto
        /// `https://host/BUCKET/KEY`, what MinIO and most local stores need.
        case path
        /// `https://BUCKET.host/KEY`, AWS's own style.
        case virtual
    }

    /// An access key; its secret and token are left out of its description.
    public struct Credentials: Sendable, Equatable, CustomStringConvertible {
        public var accessKeyID: String
        public var secretAccessKey: String
        /// A temporary credential's token (`x-amz-security-token`).
        public var sessionToken: String?

        public init(accessKeyID: String, secretAccessKey: String, sessionToken: String? = nil) {
            self.accessKeyID = accessKeyID
            self.secretAccessKey = secretAccessKey
            self.sessionToken = sessionToken
        }

        public var description: String { "Credentials(accessKeyID: \(accessKeyID), secretAccessKey: <redacted>)" }
    }

    /// The store's endpoint (`https://host[:port]`); nil: the environment's, else AWS's for the region.
    public var endpoint: String?
    /// The region signatures name; nil: the environment's or the profile's, else `us-east-1`.
    public var region: String?
    /// The profile of the shared files to read; nil: `AWS_PROFILE`, else `default`.
    public var profile: String?
    /// Nil: the profile's `s3.addressing_style`, else ``AddressingStyle/auto``.
    public var addressingStyle: AddressingStyle?
    /// Nil: the environment's, else the profile's; none at all: requests go unsigned, as to a public bucket.
    public var credentials: Credentials?
    /// The variables the AWS conventions are read from; nil: the process's own.
    public var environment: [String: String]?

    /// Everything found as the AWS tools find it, in the process's environment.
    public init() {}

    /// The request in the layers' terms.
    var request: ObjectStorageRequest {
        var request = ObjectStorageRequest()
        request.environment = environment ?? AssetSync.processEnvironment()
        request.endpoint = endpoint
        request.region = region
        request.profile = profile
        request.addressingStyle = addressingStyle.map { S3AddressingStyle(rawValue: $0.rawValue)! }
        request.credentials = credentials.map {
            AWSCredentials(accessKeyID: $0.accessKeyID, secretAccessKey: $0.secretAccessKey, sessionToken: $0.sessionToken)
        }
        return request
    }
}
