package import AssetSyncModel

/// What an S3 GetObjectAttributes answer says of an object: its ETag, its size, and the CRC-32 the
/// store keeps, with the type S3 gives it (`FULL_OBJECT`, or `COMPOSITE`: a checksum of its parts'
/// checksums, not the file's).
package struct ObjectAttributes: Sendable, Equatable {
    package var etag: String = ""
    package var size: Int64?
    /// The stored CRC-32's bytes as S3 spells them: base64 of the big-endian value.
    package var crc32Base64: String?
    package var checksumType: String?

    /// The most bytes an answer may have (one without its parts is a few hundred).
    package static let sizeLimit: Int64 = 1 << 20

    package static func read(path: String, name: String) throws(ManifestError) -> ObjectAttributes {
        var attributes = ObjectAttributes()
        var root: String?
        try S3ResponseReader.read(path: path, name: name, limit: sizeLimit) { element, text throws(ManifestError) in
            if root == nil { root = element }
            guard let text, let field = element.split(separator: "/", maxSplits: 1).last.map(String.init), element.contains("/") else { return }
            switch field {
            case "ETag": attributes.etag += text
            case "ObjectSize": attributes.size = Int64(text)
            case "Checksum/ChecksumCRC32": attributes.crc32Base64 = (attributes.crc32Base64 ?? "") + text
            case "Checksum/ChecksumType": attributes.checksumType = text
            default: break
            }
        }
        guard root == "GetObjectAttributesResponse" || root == "GetObjectAttributesOutput" else {
            throw ManifestError(
                manifest: name, problem: "not a GetObjectAttributes answer: its root element is \(QuotedValue.quote(root ?? "missing"))")
        }
        return attributes
    }

    /// The file's own CRC-32, when the store keeps one: never a composite (its type says so, or,
    /// where a store gives no type, the `-N` of a multipart upload's ETag does).
    package var fileCRC32: UInt32? {
        guard let text = crc32Base64, checksumType != "COMPOSITE", !Self.isMultipart(etag) else { return nil }
        guard let bytes = try? Base64.decode(text.utf8).get(), bytes.count == 4 else { return nil }
        return bytes.reduce(0) { $0 << 8 | UInt32($1) }
    }

    /// Whether `etag` is a multipart upload's (`"…-N"`), which is no digest of the bytes.
    package static func isMultipart(_ etag: String) -> Bool {
        let bare = etag.drop { $0 == "\"" }.reversed().drop { $0 == "\"" }.reversed()
        guard let dash = bare.lastIndex(of: "-") else { return false }
        let count = bare[bare.index(after: dash)...]
        return !count.isEmpty && count.allSatisfy(\.isNumber)
    }
}
