package import AssetSyncModel

/// Reads an S3 answer (a listing page, an object's attributes) with libxml2's streaming reader, as
/// a manifest is read (no network, no DTD, no entity, a size limit), handing each text with the
/// path of the elements around it (`ListBucketResult/Contents/Key`) to a callback; an element
/// that opens, `text` nil.
package enum S3ResponseReader {
    /// The answers read, whose values are text.
    static let textRoots = ["ListBucketResult", "GetObjectAttributesResponse", "GetObjectAttributesOutput"]

    /// Reads the answer at `path` (named `name` in errors), at most `limit` bytes.
    package static func read(
        path: String, name: String, limit: Int64, _ body: (_ element: String, _ text: String?) throws(ManifestError) -> Void
    ) throws(ManifestError) {
        XMLManifestReader.prepare()
        let input = try ManifestInput(path: path, displayName: name, limit: limit)
        let reader = XMLNodeReader(input: input, textRoots: textRoots)
        var batch = XMLNodeBatch(capacity: 256)
        var open: [String] = []
        while true {
            batch.removeAll()
            reader.read(into: &batch, limit: 256)
            for node in batch.nodes {
                switch node.kind {
                case .element:
                    open.removeLast(max(0, open.count - Int(node.depth)))
                    open.append(node.text.map(batch.string) ?? "")
                    try body(open.joined(separator: "/"), nil)
                    if node.isEmpty { open.removeLast() }
                case .endElement:
                    open.removeLast(max(0, open.count - Int(node.depth)))
                case .text:
                    open.removeLast(max(0, open.count - Int(node.depth)))
                    try body(open.joined(separator: "/"), node.text.map(batch.string) ?? "")
                }
            }
            switch batch.end {
            case .finished(let inputError?), .failed(let inputError): throw inputError
            case .finished(nil): return
            case nil: continue
            }
        }
    }
}
