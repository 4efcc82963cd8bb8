/// What a request says about S3-compatible stores: the environment the AWS tools' conventions are
/// read from (`AWS_PROFILE`, `AWS_REGION`, `AWS_ENDPOINT_URL`, the shared files), and the values
/// given instead of theirs (command-line options, a library's settings). They are resolved only
/// when a manifest names a store.
package struct ObjectStorageRequest: Sendable, Equatable {
    package var environment: [String: String] = [:]
    package var endpoint: String?
    package var region: String?
    package var profile: String?
    package var addressingStyle: S3AddressingStyle?
    package var credentials: AWSCredentials?

    package init() {}

    /// Whether an endpoint is given here or by the environment: then an `https://` URL at it is a
    /// store's, signed, even in a manifest that names no `s3://` URL.
    package var namesEndpoint: Bool {
        endpoint != nil || ["AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL"].contains { !(environment[$0] ?? "").isEmpty }
    }
}
