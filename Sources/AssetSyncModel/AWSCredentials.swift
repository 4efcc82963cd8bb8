/// An AWS-style access key: what signs requests to an S3-compatible store (`SignatureV4`).
package struct AWSCredentials: Sendable, Equatable {
    package var accessKeyID: String
    package var secretAccessKey: String
    /// A temporary credential's token, sent as `x-amz-security-token` and signed.
    package var sessionToken: String?

    package init(accessKeyID: String, secretAccessKey: String, sessionToken: String? = nil) {
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
        self.sessionToken = sessionToken
    }
}
