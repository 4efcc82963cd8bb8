/// How a bucket is named in a request to an S3-compatible store: in the path
/// (`https://host/BUCKET/KEY`, what MinIO and most local stores need), in the host
/// (`https://BUCKET.host/KEY`, AWS's own style), or `auto`: in the host for AWS when the bucket's
/// name allows it, in the path for any other endpoint.
package enum S3AddressingStyle: String, Sendable, CaseIterable {
    case auto
    case path
    case virtual
}
