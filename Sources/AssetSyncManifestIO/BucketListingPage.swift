package import AssetSyncModel

/// One page of an S3 ListObjectsV2 answer (at most 1,000 keys, as S3 caps them): its objects, and
/// the token that asks for the next page when the listing is truncated.
package struct BucketListingPage: Sendable, Equatable {
    package struct Object: Sendable, Equatable {
        package var key: String
        package var size: Int64
        /// As listed, quotes included: `"…-N"` for a multipart upload.
        package var etag: String
    }

    package var objects: [Object] = []
    /// Nil on the last page.
    package var continuationToken: String?

    /// The most bytes a page may have: 1,000 keys of at most 1,024 bytes, escaped, with their fields.
    package static let sizeLimit: Int64 = 16 << 20

    /// Reads the page at `path`; an object with a missing or malformed size, or a truncated page
    /// without a token, is a malformed answer.
    package static func read(path: String, name: String) throws(ManifestError) -> BucketListingPage {
        var page = BucketListingPage()
        var current: (key: String?, size: Int64?, etag: String)?
        var truncated = false
        func malformed(_ problem: String) -> ManifestError { ManifestError(manifest: name, problem: "not a ListObjectsV2 answer: " + problem) }
        func finish() throws(ManifestError) {
            guard let object = current else { return }
            guard let key = object.key, let size = object.size else {
                throw malformed("an object without a Key or a Size (\(QuotedValue.quote(object.key ?? "")))")
            }
            page.objects.append(Object(key: key, size: size, etag: object.etag))
            current = nil
        }
        var root: String?
        try S3ResponseReader.read(path: path, name: name, limit: sizeLimit) { element, text throws(ManifestError) in
            if root == nil { root = element }
            guard let text else {
                if element == "ListBucketResult/Contents" {
                    try finish()
                    current = (nil, nil, "")
                }
                return
            }
            switch element {
            case "ListBucketResult/Contents/Key":
                let before = current?.key ?? ""
                current?.key = before + text
            case "ListBucketResult/Contents/Size":
                guard let size = Int64(text), size >= 0 else { throw malformed("a Size that is no byte count: \(QuotedValue.quote(text))") }
                current?.size = size
            case "ListBucketResult/Contents/ETag": current?.etag += text
            case "ListBucketResult/IsTruncated": truncated = text == "true"
            case "ListBucketResult/NextContinuationToken": page.continuationToken = (page.continuationToken ?? "") + text
            default: break
            }
        }
        try finish()
        guard root == "ListBucketResult" else { throw malformed("its root element is \(QuotedValue.quote(root ?? "missing")), not ListBucketResult") }
        if !truncated { page.continuationToken = nil }
        if truncated, page.continuationToken?.isEmpty ?? true { throw malformed("truncated, without a NextContinuationToken") }
        return page
    }
}
