/// Requests to one S3-compatible endpoint, signed with AWS Signature Version 4: which origin (its
/// scheme, host and port, as `URLRules.origin` spells it), the region the signature names, and
/// the key. Requests to any other origin, redirects included, go unsigned.
package struct ObjectStoreAccess: Sendable, Equatable {
    package var endpointOrigin: String
    package var region: String
    package var credentials: AWSCredentials

    /// - Parameter endpoint: the endpoint's URL; only its origin counts.
    package init(endpoint: String, region: String, credentials: AWSCredentials) {
        endpointOrigin = URLRules.origin(of: endpoint)
        self.region = region
        self.credentials = credentials
    }

    /// Whether a request to `url` is signed.
    package func signs(_ url: String) -> Bool { URLRules.origin(of: url) == endpointOrigin }
}
