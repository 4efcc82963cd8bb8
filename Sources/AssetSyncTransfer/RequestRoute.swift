import AssetSyncModel
/// Where a request goes now: the URL asked for (an `s3://` one at its store's endpoint), moved
/// along the redirects followed under `RedirectRule`, and whether it may still carry the user's
/// credentials (within their scope, and never past a hop that leaves the origin asked for).
struct RequestRoute {
    private(set) var url: String
    private(set) var hops = 0
    private(set) var sendsCredentials: Bool
    /// No hop has left the origin of the URL first asked: a signed request may still be signed.
    private(set) var atFirstOrigin = true

    init(_ url: String, options: TransferOptions) {
        let store = options.objectStore ?? ObjectStoreAccess(endpoint: nil, credentials: nil)
        self.url = S3Location.requestURL(for: url, at: store) ?? url
        sendsCredentials = options.credentialScope.admits(self.url)
    }

    /// Follows a redirect to `location`; the refusal when the rules forbid the hop.
    mutating func follow(_ location: String?) -> RedirectRule.Refusal? {
        switch RedirectRule.follow(from: url, to: location, hop: hops + 1) {
        case .failure(let refusal):
            return refusal
        case .success(let hop):
            hops += 1
            if !hop.sameOrigin {
                sendsCredentials = false
                atFirstOrigin = false
            }
            url = hop.url
            return nil
        }
    }
}
