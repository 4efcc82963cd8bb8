/// What a manifest URL may be (absolute http/https, `s3://BUCKET/KEY` for an object in an
/// S3-compatible store, or a reference relative to `base`), how a relative one is resolved, and
/// how a path becomes a URL.
package enum URLRules {
    package static let maximumBytes = 8192

    /// A URL taken apart just enough to check it and resolve against it.
    package struct Parts {
        package var scheme: String
        package var authority: String
        package var path: String
        /// The query and fragment, with their leading "?" or "#".
        package var rest: String

        package var text: String { scheme + "://" + authority + path + rest }
    }

    /// Checks a `url`, mirror or `base` field: `isAbsolute` tells whether it can stand alone.
    package static func check(_ text: String, field: String) throws(RuleViolation) -> (text: String, isAbsolute: Bool) {
        var bytes = text
        let outcome = bytes.withUTF8 { checked($0, field: field, text: text) }
        return (text, try outcome.get())
    }

    /// `check` on the UTF-8 bytes of `text`: whether it is absolute, or the first rule it breaks.
    private static func checked(
        _ bytes: UnsafeBufferPointer<UInt8>, field: String, text: String
    ) -> Result<Bool, RuleViolation> {
        var value: String { QuotedValue.quote(text) }
        guard !bytes.isEmpty else { return .failure(RuleViolation("\(field) must not be empty")) }
        guard bytes.count <= maximumBytes else {
            return .failure(RuleViolation("\(field) must be at most \(maximumBytes) bytes long", value: value))
        }
        for byte in bytes {
            if byte < 0x21 || byte == 0x7F {
                return .failure(
                    RuleViolation("\(field) must not contain spaces or control characters (such as CR or LF)", value: value))
            }
            if byte >= 0x80 {
                return .failure(RuleViolation("\(field) must be ASCII; percent-encode other characters", value: value))
            }
        }
        guard let schemeEnd = schemeLength(bytes) else { return .success(false) }
        return absoluteBounds(bytes, schemeEnd: schemeEnd, field: field, text: text).map { _ in true }
    }

    /// Resolves a relative reference against an absolute base, as RFC 3986 §5.2 does.
    package static func resolve(_ reference: String, against base: String, field: String) throws(RuleViolation) -> String {
        try resolve(reference, against: parse(base, field: "base"), field: field)
    }

    /// `resolve` against a base already taken apart by `parse`.
    package static func resolve(_ reference: String, against baseParts: Parts, field: String) throws(RuleViolation) -> String {
        var resolved = baseParts
        if reference.hasPrefix("//") {
            return try parse(baseParts.scheme + ":" + reference, field: field).text
        } else if reference.hasPrefix("/") {
            let (path, rest) = splitPath(reference)
            resolved.path = removingDotSegments(path)
            resolved.rest = rest
        } else if reference.hasPrefix("?") || reference.hasPrefix("#") {
            if reference.hasPrefix("#") {
                resolved.rest = String(baseParts.rest.prefix { $0 != "#" }) + reference
            } else {
                resolved.rest = reference
            }
        } else {
            let (path, rest) = splitPath(reference)
            // RFC 3986 §5.2.3: the base path up to its last "/" (none: nothing), or "/" for an empty one.
            let directory = baseParts.path.isEmpty ? "/" : baseParts.path.lastIndex(of: "/").map { String(baseParts.path[...$0]) } ?? ""
            resolved.path = removingDotSegments(directory + path)
            resolved.rest = rest
        }
        return resolved.text
    }

    /// The scheme, host and port of an absolute URL, lowercased, with the scheme's default port
    /// when none is given: `https://cdn.example.com:443`; for an object store's URL, its bucket
    /// (`s3://assets`). A URL that does not parse is its own origin.
    package static func origin(of url: String) -> String {
        guard let parts = try? parse(url, field: "url") else { return url }
        let authority = parts.authority.lowercased()
        if parts.scheme == "s3" { return "s3://" + authority }
        let hasPort = authority.last != "]" && authority.contains(":")
        return parts.scheme + "://" + authority + (hasPort ? "" : parts.scheme == "https" ? ":443" : ":80")
    }

    /// `url` in the normal form of RFC 3986 section 6, for telling whether two spellings name the
    /// same source: scheme and host in lowercase, the scheme's default port left out (`:80` for
    /// http, `:443` for https; a port's leading zeros dropped), percent-encoded unreserved characters
    /// decoded (`%7E` is `~`) and every other triplet's hex digits in uppercase, dot segments
    /// removed (after that decoding: `%2E%2E` is `..`), an empty path as `/`. The fragment is left
    /// out: it is never sent, so it cannot make two requests differ. What stays apart is what a
    /// server may tell apart: the path's case, an encoded reserved character (`%2F` is not `/`),
    /// the query. Nil when `url` is not an absolute http(s) or s3 URL.
    package static func normalized(_ url: String) -> String? {
        guard let parts = try? parse(url, field: "url") else { return nil }
        var authority = Substring(parts.authority)
        var port: Substring?
        if authority.first == "[" {
            if let close = authority.firstIndex(of: "]"), authority.index(after: close) != authority.endIndex {
                port = authority[authority.index(close, offsetBy: 2)...]
                authority = authority[...close]
            }
        } else if let colon = authority.lastIndex(of: ":") {
            port = authority[authority.index(after: colon)...]
            authority = authority[..<colon]
        }
        var out = parts.scheme + "://" + percentNormalized(authority, lowercasing: true)
        if let port, let number = Int(port), number != (parts.scheme == "https" ? 443 : 80) { out += ":\(number)" }
        out += removingDotSegments(percentNormalized(Substring(parts.path), lowercasing: false))
        let query = parts.rest.prefix { $0 != "#" }
        out += percentNormalized(query, lowercasing: false)
        return out
    }

    /// `text` with each `%XX` of an unreserved character decoded and every other one's hex digits
    /// in uppercase (RFC 3986 sections 6.2.2.1 and 6.2.2.2); with `lowercasing`, every letter
    /// outside a triplet in lowercase too (a host's case means nothing).
    private static func percentNormalized(_ text: Substring, lowercasing: Bool) -> String {
        let bytes = Array(text.utf8)
        guard bytes.contains(UInt8(ascii: "%")) || (lowercasing && bytes.contains(where: isUppercase)) else { return String(text) }
        func hexValue(_ byte: UInt8) -> UInt8? {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
            default: return nil
            }
        }
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%"), index + 2 < bytes.count, let high = hexValue(bytes[index + 1]),
               let low = hexValue(bytes[index + 2]) {
                let value = high << 4 | low
                if isUnreserved(value) {
                    out.append(lowercasing && isUppercase(value) ? value | 0x20 : value)
                } else {
                    out += [UInt8(ascii: "%"), hex[Int(high)], hex[Int(low)]]
                }
                index += 3
            } else {
                out.append(lowercasing && isUppercase(byte) ? byte | 0x20 : byte)
                index += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func isUppercase(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") }

    /// RFC 3986's unreserved characters: letters, digits, `-`, `.`, `_` and `~`.
    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }

    /// Whether `a` and `b` name the same source: their `normalized` forms are equal (or, for text
    /// that is not an absolute http(s) URL, the text itself is).
    package static func sameSource(_ a: String, _ b: String) -> Bool {
        a == b || (normalized(a) ?? a) == (normalized(b) ?? b)
    }

    /// What follows `base` in `url`, a URL resolved against it: nil when the URL does not lie under
    /// `base` (a reference such as `../x` or `/x` left its directory). `base` is compared as
    /// resolution spells it (scheme in lowercase, dot segments removed).
    package static func relativePart(of url: String, under base: String) -> Substring? {
        guard let prefix = try? resolve("", against: base, field: "base"), url.utf8.starts(with: prefix.utf8) else { return nil }
        return Substring(url.utf8.dropFirst(prefix.utf8.count))
    }

    /// The path with every byte outside RFC 3986's unreserved set (and "/") percent-encoded.
    package static func percentEncodedPath(_ path: String) -> String {
        func isSafe(_ byte: UInt8) -> Bool {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "/"):
                return true
            default:
                return false
            }
        }
        if path.utf8.allSatisfy(isSafe) { return path }
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(path.utf8.count * 3)
        for byte in path.utf8 {
            if isSafe(byte) {
                out.append(byte)
            } else {
                out += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Whether the text starts with a scheme, so is not relative to `base`.
    static func hasScheme(_ text: String) -> Bool {
        var bytes = text
        return bytes.withUTF8 { schemeLength($0) } != nil
    }

    /// The length of the scheme `bytes` start with (before its ":"), if they start with one:
    /// `letter *(letter / digit / "+" / "-" / ".") ":"`.
    private static func schemeLength(_ bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        for (index, byte) in bytes.enumerated() {
            if byte == UInt8(ascii: ":") { return index == 0 ? nil : index }
            let isLetter = (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z")
            let isOther = (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "+")
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
            guard isLetter || (index != 0 && isOther) else { return nil }
        }
        return nil
    }

    /// Whether `scheme` is http or https, in any case.
    private static func isHTTP(_ scheme: UnsafeBufferPointer<UInt8>) -> Bool {
        guard scheme.count == 4 || scheme.count == 5 else { return false }
        for (index, letter) in "https".utf8.prefix(scheme.count).enumerated() where scheme[index] | 0x20 != letter {
            return false
        }
        return true
    }

    /// Whether `scheme` is s3, in any case.
    private static func isS3(_ scheme: UnsafeBufferPointer<UInt8>) -> Bool {
        scheme.count == 2 && scheme[0] | 0x20 == UInt8(ascii: "s") && scheme[1] == UInt8(ascii: "3")
    }

    /// Whether `url` names an object in an S3-compatible store (`s3://BUCKET/KEY`), which a request
    /// reaches only through the store's endpoint.
    package static func isObjectStoreURL(_ url: some StringProtocol) -> Bool {
        url.utf8.count > 5 && url.utf8.prefix(5).map { $0 | 0x20 }.elementsEqual("s3://".utf8.map { $0 | 0x20 })
    }

    /// A bucket name as S3 allows one: 3 to 63 lowercase letters, digits, dots and hyphens,
    /// starting and ending with a letter or digit.
    package static func isBucketName(_ name: some Collection<UInt8>) -> Bool {
        func alphanumeric(_ byte: UInt8) -> Bool {
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
        }
        guard (3...63).contains(name.count), let first = name.first, alphanumeric(first), name.reversed().first.map(alphanumeric) == true
        else { return false }
        return name.allSatisfy { alphanumeric($0) || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "-") }
    }

    package static func parse(_ text: String, field: String) throws(RuleViolation) -> Parts {
        let (scheme, authority, remainder) = try split(text, field: field)
        let (path, rest) = splitPath(String(remainder))
        return Parts(scheme: scheme.lowercased(), authority: String(authority), path: path.isEmpty ? "/" : path, rest: rest)
    }

    /// Checks an absolute http(s) or s3 URL and returns its scheme, authority and the rest, without copying.
    private static func split(
        _ text: String, field: String
    ) throws(RuleViolation) -> (scheme: Substring, authority: Substring, rest: Substring) {
        var bytes = text
        let outcome = bytes.withUTF8 { bytes -> Result<(scheme: Int, authority: Range<Int>), RuleViolation> in
            guard let schemeEnd = schemeLength(bytes) else {
                return .failure(RuleViolation("\(field) must be an absolute URL", value: QuotedValue.quote(text)))
            }
            return absoluteBounds(bytes, schemeEnd: schemeEnd, field: field, text: text).map { (schemeEnd, $0) }
        }
        let (schemeEnd, authority) = try outcome.get()
        let utf8 = text.utf8
        func index(_ offset: Int) -> String.Index { utf8.index(utf8.startIndex, offsetBy: offset) }
        return (text[..<index(schemeEnd)], text[index(authority.lowerBound)..<index(authority.upperBound)],
                text[index(authority.upperBound)...])
    }

    /// Checks the absolute URL `bytes` (of `text`), whose scheme ends at `schemeEnd`, and returns
    /// where its authority (`host[:port]` or `[v6]:port`) lies.
    private static func absoluteBounds(
        _ bytes: UnsafeBufferPointer<UInt8>, schemeEnd: Int, field: String, text: String
    ) -> Result<Range<Int>, RuleViolation> {
        func broken(_ rule: String, remedy: Remedy? = nil) -> Result<Range<Int>, RuleViolation> {
            .failure(RuleViolation("\(field) \(rule)", value: QuotedValue.quote(text), remedy: remedy))
        }
        let scheme = UnsafeBufferPointer(rebasing: bytes[..<schemeEnd])
        var schemeText: String { String(decoding: scheme, as: UTF8.self) }
        let isObjectStore = isS3(scheme)
        guard isHTTP(scheme) || isObjectStore else { return broken("must use http, https or s3, not \(schemeText)") }
        let afterScheme = schemeEnd + 1
        guard bytes.count >= afterScheme + 2, bytes[afterScheme] == UInt8(ascii: "/"), bytes[afterScheme + 1] == UInt8(ascii: "/") else {
            return broken("must have a host (\(schemeText.lowercased())://host/…)")
        }
        let start = afterScheme + 2
        var end = start
        while end < bytes.count, bytes[end] != UInt8(ascii: "/"), bytes[end] != UInt8(ascii: "?"), bytes[end] != UInt8(ascii: "#") {
            end += 1
        }
        let authority = UnsafeBufferPointer(rebasing: bytes[start..<end])
        guard !authority.contains(UInt8(ascii: "@")) else {
            return broken("must not carry credentials", remedy: .credentialsOutsideTheURL)
        }
        if isObjectStore {
            // The store's endpoint, region and credentials come from its settings, never from the URL.
            guard isBucketName(authority) else {
                return broken("must name a bucket (s3://BUCKET/KEY: 3 to 63 lowercase letters, digits, dots and hyphens)")
            }
            return .success(start..<end)
        }
        var hostEnd = authority.count
        var portStart: Int?
        if authority.first == UInt8(ascii: "[") {
            guard let close = authority.firstIndex(of: UInt8(ascii: "]")) else {
                return broken("has an unterminated IPv6 address")
            }
            hostEnd = close + 1
            if hostEnd != authority.count {
                guard authority[hostEnd] == UInt8(ascii: ":") else { return broken("has a malformed host") }
                portStart = hostEnd + 1
            }
        } else if let colon = authority.lastIndex(of: UInt8(ascii: ":")) {
            hostEnd = colon
            portStart = colon + 1
        }
        guard hostEnd != 0 else { return broken("must have a host") }
        if let portStart {
            var port = 0
            var digits = 0
            for byte in authority[portStart...] {
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9"), digits < 5 else {
                    return broken("has an invalid port")
                }
                port = port * 10 + Int(byte - UInt8(ascii: "0"))
                digits += 1
            }
            guard digits > 0, port <= 65535 else { return broken("has an invalid port") }
        }
        return .success(start..<end)
    }

    /// Splits "/a/b?q#f" into "/a/b" and "?q#f".
    private static func splitPath(_ text: String) -> (String, String) {
        var bytes = text
        let asciiEnd = bytes.withUTF8 { bytes -> Int?? in
            guard bytes.allSatisfy({ $0 < 0x80 }) else { return nil }
            return .some(bytes.firstIndex { $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") })
        }
        // In ASCII every byte is a character (but CR LF, neither of which is "?" or "#").
        if let asciiEnd {
            guard let end = asciiEnd else { return (text, "") }
            let index = text.utf8.index(text.utf8.startIndex, offsetBy: end)
            return (String(text[..<index]), String(text[index...]))
        }
        guard let end = text.firstIndex(where: { $0 == "?" || $0 == "#" }) else { return (text, "") }
        return (String(text[..<end]), String(text[end...]))
    }

    /// RFC 3986 §5.2.4 on an absolute path.
    static func removingDotSegments(_ path: String) -> String {
        if let ascii = asciiRemovingDotSegments(path) { return ascii }
        var output: [Substring] = []
        let segments = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        for (index, segment) in segments.enumerated() {
            let isLast = index == segments.count - 1
            switch segment {
            case ".":
                if isLast { output.append("") }
            case "..":
                if !output.isEmpty { output.removeLast() }
                if isLast { output.append("") }
            default:
                output.append(segment)
            }
        }
        return "/" + output.joined(separator: "/")
    }

    /// `removingDotSegments` on an ASCII path, a byte at a time (where characters and bytes are the
    /// same: no "/" or "." can combine with what follows); nil for any other path.
    private static func asciiRemovingDotSegments(_ path: String) -> String? {
        var path = path
        return path.withUTF8 { bytes -> String? in
            guard bytes.allSatisfy({ $0 < 0x80 }) else { return nil }
            let dot = UInt8(ascii: ".")
            var output: [Range<Int>] = []
            var start = 0
            var isFirst = true
            for end in 0...bytes.count where end == bytes.count || bytes[end] == UInt8(ascii: "/") {
                defer { start = end + 1 }
                if isFirst {  // what precedes the leading "/"
                    isFirst = false
                    continue
                }
                let segment = start..<end
                let isLast = end == bytes.count
                if segment.count == 1, bytes[start] == dot {
                    if isLast { output.append(end..<end) }
                } else if segment.count == 2, bytes[start] == dot, bytes[start + 1] == dot {
                    if !output.isEmpty { output.removeLast() }
                    if isLast { output.append(end..<end) }
                } else {
                    output.append(segment)
                }
            }
            var result: [UInt8] = [UInt8(ascii: "/")]
            result.reserveCapacity(bytes.count + 1)
            for (index, segment) in output.enumerated() {
                if index > 0 { result.append(UInt8(ascii: "/")) }
                result.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[segment]))
            }
            return String(decoding: result, as: UTF8.self)
        }
    }
}
