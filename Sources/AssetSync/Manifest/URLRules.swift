/// What a manifest URL may be (absolute http/https, or a reference relative
/// to `base`), how a relative one is resolved, and how a path becomes a URL.
public enum URLRules {
    public static let maximumBytes = 8192

    /// A URL taken apart just enough to check it and resolve against it.
    struct Parts {
        var scheme: String
        var authority: String
        var path: String
        /// The query and fragment, with their leading "?" or "#".
        var rest: String

        var text: String { scheme + "://" + authority + path + rest }
    }

    /// Checks a `url`, mirror or `base` field: `isAbsolute` tells whether it can stand alone.
    static func check(_ text: String, field: String) throws(RuleViolation) -> (text: String, isAbsolute: Bool) {
        var value: String { QuotedValue.quote(text) }
        guard !text.isEmpty else { throw RuleViolation("\(field) must not be empty") }
        guard text.utf8.count <= maximumBytes else {
            throw RuleViolation("\(field) must be at most \(maximumBytes) bytes long", value: value)
        }
        for byte in text.utf8 {
            if byte < 0x21 || byte == 0x7F {
                throw RuleViolation("\(field) must not contain spaces or control characters (such as CR or LF)", value: value)
            }
            if byte >= 0x80 {
                throw RuleViolation("\(field) must be ASCII; percent-encode other characters", value: value)
            }
        }
        if let scheme = scheme(of: text) {
            guard isHTTP(scheme) else {
                throw RuleViolation("\(field) must use http or https, not \(scheme)", value: value)
            }
            _ = try split(text, field: field)
            return (text, true)
        }
        return (text, false)
    }

    /// Resolves a relative reference against an absolute base, as RFC 3986 §5.2 does.
    static func resolve(_ reference: String, against base: String, field: String) throws(RuleViolation) -> String {
        let baseParts = try parse(base, field: "base")
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
            let directory = baseParts.path.isEmpty ? "/" : String(baseParts.path[...(baseParts.path.lastIndex(of: "/")!)])
            resolved.path = removingDotSegments(directory + path)
            resolved.rest = rest
        }
        return resolved.text
    }

    /// The path with every byte outside RFC 3986's unreserved set (and "/") percent-encoded.
    public static func percentEncodedPath(_ path: String) -> String {
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

    /// The scheme, if the text starts with one (`letter *(letter / digit / "+" / "-" / ".") ":"`).
    static func scheme(of text: String) -> Substring? {
        let bytes = text.utf8
        var index = bytes.startIndex
        while index != bytes.endIndex {
            let byte = bytes[index]
            if byte == UInt8(ascii: ":") { return index == bytes.startIndex ? nil : text[..<index] }
            let isLetter = (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z")
            let isOther = (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "+")
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
            guard isLetter || (index != bytes.startIndex && isOther) else { return nil }
            index = bytes.index(after: index)
        }
        return nil
    }

    /// Whether `scheme` is http or https, in any case.
    static func isHTTP(_ scheme: Substring) -> Bool {
        let lower = scheme.utf8.map { $0 | 0x20 }
        return lower.elementsEqual("http".utf8) || lower.elementsEqual("https".utf8)
    }

    static func parse(_ text: String, field: String) throws(RuleViolation) -> Parts {
        let (scheme, authority, remainder) = try split(text, field: field)
        let (path, rest) = splitPath(String(remainder))
        return Parts(scheme: scheme.lowercased(), authority: String(authority), path: path.isEmpty ? "/" : path, rest: rest)
    }

    /// Checks an absolute http(s) URL and returns its scheme, authority and the rest, without copying.
    private static func split(
        _ text: String, field: String
    ) throws(RuleViolation) -> (scheme: Substring, authority: Substring, rest: Substring) {
        var value: String { QuotedValue.quote(text) }
        guard let scheme = scheme(of: text) else { throw RuleViolation("\(field) must be an absolute URL", value: value) }
        guard isHTTP(scheme) else {
            throw RuleViolation("\(field) must use http or https, not \(scheme)", value: value)
        }
        let afterScheme = text.utf8[text.utf8.index(after: scheme.endIndex)...]
        guard afterScheme.starts(with: "//".utf8) else {
            throw RuleViolation("\(field) must have a host (\(scheme.lowercased())://host/…)", value: value)
        }
        let afterSlashes = afterScheme.dropFirst(2)
        let authorityEnd = afterSlashes.firstIndex {
            $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#")
        } ?? afterSlashes.endIndex
        let authority = text[afterSlashes.startIndex..<authorityEnd]
        guard !authority.utf8.contains(UInt8(ascii: "@")) else {
            throw RuleViolation("\(field) must not carry credentials; use --netrc or --header", value: value)
        }
        try checkAuthority(authority, field: field, text: text)
        return (scheme, authority, text[authorityEnd...])
    }

    /// Checks `host[:port]` or `[v6]:port` byte by byte.
    private static func checkAuthority(_ authority: Substring, field: String, text: String) throws(RuleViolation) {
        var value: String { QuotedValue.quote(text) }
        let bytes = authority.utf8
        var hostEnd = bytes.endIndex
        var portStart: Substring.UTF8View.Index?
        if bytes.first == UInt8(ascii: "[") {
            guard let close = bytes.firstIndex(of: UInt8(ascii: "]")) else {
                throw RuleViolation("\(field) has an unterminated IPv6 address", value: value)
            }
            hostEnd = bytes.index(after: close)
            if hostEnd != bytes.endIndex {
                guard bytes[hostEnd] == UInt8(ascii: ":") else { throw RuleViolation("\(field) has a malformed host", value: value) }
                portStart = bytes.index(after: hostEnd)
            }
        } else if let colon = bytes.lastIndex(of: UInt8(ascii: ":")) {
            hostEnd = colon
            portStart = bytes.index(after: colon)
        }
        guard hostEnd != bytes.startIndex else { throw RuleViolation("\(field) must have a host", value: value) }
        if let portStart {
            var port = 0
            var digits = 0
            for byte in bytes[portStart...] {
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9"), digits < 5 else {
                    throw RuleViolation("\(field) has an invalid port", value: value)
                }
                port = port * 10 + Int(byte - UInt8(ascii: "0"))
                digits += 1
            }
            guard digits > 0, port <= 65535 else { throw RuleViolation("\(field) has an invalid port", value: value) }
        }
    }

    /// Splits "/a/b?q#f" into "/a/b" and "?q#f".
    private static func splitPath(_ text: String) -> (String, String) {
        guard let end = text.firstIndex(where: { $0 == "?" || $0 == "#" }) else { return (text, "") }
        return (String(text[..<end]), String(text[end...]))
    }

    /// RFC 3986 §5.2.4 on an absolute path.
    static func removingDotSegments(_ path: String) -> String {
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
}
