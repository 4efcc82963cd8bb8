import AssetSyncModel

extension ObjectStoreAccess {
    /// The signature headers for a GET of `url` at `seconds` since the epoch, signing its `Range`
    /// (`range`, as libcurl sends it: `bytes=` and the value) and its `If-Range` and `x-amz-`
    /// headers among `headers` ("Name: value"); and the URL to send, its path and query spelled as
    /// they were signed. Nil when `url` does not parse or there is no key.
    func sign(_ url: String, range: String?, headers: [String], at seconds: Int64) -> (url: String, headers: [String])? {
        guard let credentials, let parts = try? URLRules.parse(url, field: "url") else { return nil }
        let query = parts.rest.prefix { $0 != "#" }.dropFirst()
        let items: [(name: String, value: String)] = query.isEmpty ? [] : query.split(separator: "&", omittingEmptySubsequences: false).map { pair in
            let name = pair.prefix { $0 != "=" }
            return (name: Self.decoded(name), value: Self.decoded(pair.dropFirst(name.count).dropFirst()))
        }
        var signed: [(name: String, value: String)] = range.map { [(name: "Range", value: "bytes=\($0)")] } ?? []
        // If-Range, and every x-amz- header sent: S3 refuses an x-amz- header left out of the signature.
        for header in headers {
            let name = header.prefix { $0 != ":" }
            let lower = name.lowercased()
            guard lower == "if-range" || lower.hasPrefix("x-amz-") else { continue }
            signed.append((name: String(name), value: String(header.dropFirst(name.count + 1))))
        }
        // Each segment as S3 spells it when it checks the signature: decoded, then escaped but for the unreserved characters.
        let path = parts.path.split(separator: "/", omittingEmptySubsequences: false).map { SignatureV4.encode(Self.decoded($0)) }
            .joined(separator: "/")
        let request = SignatureV4.Request(host: parts.authority, path: path, query: items, headers: signed)
        let added = SignatureV4(credentials: credentials, region: region).headers(for: request, at: seconds)
        let sentQuery = SignatureV4.query(items)
        let sent = parts.scheme + "://" + parts.authority + request.path + (sentQuery.isEmpty ? "" : "?" + sentQuery)
        return (sent, added.map { "\($0.name): \($0.value)" })
    }

    /// `text` with its `%XX` triplets decoded (an invalid one kept as it is).
    static func decoded(_ text: Substring) -> String {
        var bytes: [UInt8] = []
        var rest = Array(text.utf8)[...]
        while let byte = rest.popFirst() {
            if byte == UInt8(ascii: "%"), rest.count >= 2, let value = UInt8(String(decoding: rest.prefix(2), as: UTF8.self), radix: 16) {
                bytes.append(value)
                rest = rest.dropFirst(2)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
