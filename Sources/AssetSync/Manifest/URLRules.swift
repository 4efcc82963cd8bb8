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
        let value = QuotedValue.quote(text)
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
            let lower = scheme.lowercased()
            guard lower == "http" || lower == "https" else {
                throw RuleViolation("\(field) must use http or https, not \(scheme)", value: value)
            }
            _ = try parse(text, field: field)
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
    static func scheme(of text: String) -> String? {
        var scheme = ""
        for character in text.unicodeScalars {
            if character == ":" { return scheme.isEmpty ? nil : scheme }
            let isLetter = ("a"..."z").contains(character) || ("A"..."Z").contains(character)
            let isOther = ("0"..."9").contains(character) || character == "+" || character == "-" || character == "."
            guard isLetter || (!scheme.isEmpty && isOther) else { return nil }
            scheme.unicodeScalars.append(character)
        }
        return nil
    }

    static func parse(_ text: String, field: String) throws(RuleViolation) -> Parts {
        let value = QuotedValue.quote(text)
        guard let scheme = scheme(of: text) else { throw RuleViolation("\(field) must be an absolute URL", value: value) }
        let lower = scheme.lowercased()
        guard lower == "http" || lower == "https" else {
            throw RuleViolation("\(field) must use http or https, not \(scheme)", value: value)
        }
        let afterScheme = text.dropFirst(scheme.count + 1)
        guard afterScheme.hasPrefix("//") else {
            throw RuleViolation("\(field) must have a host (\(lower)://host/…)", value: value)
        }
        let afterSlashes = afterScheme.dropFirst(2)
        let authorityEnd = afterSlashes.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? afterSlashes.endIndex
        let authority = String(afterSlashes[..<authorityEnd])
        guard !authority.contains("@") else {
            throw RuleViolation("\(field) must not carry credentials; use --netrc or --header", value: value)
        }
        try checkAuthority(authority, field: field, value: value)
        let (path, rest) = splitPath(String(afterSlashes[authorityEnd...]))
        return Parts(scheme: lower, authority: authority, path: path.isEmpty ? "/" : path, rest: rest)
    }

    private static func checkAuthority(_ authority: String, field: String, value: String) throws(RuleViolation) {
        var host = Substring(authority)
        var port: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else {
                throw RuleViolation("\(field) has an unterminated IPv6 address", value: value)
            }
            host = authority[...close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw RuleViolation("\(field) has a malformed host", value: value) }
                port = after.dropFirst()
            }
        } else if let colon = authority.lastIndex(of: ":") {
            host = authority[..<colon]
            port = authority[authority.index(after: colon)...]
        }
        guard !host.isEmpty else { throw RuleViolation("\(field) must have a host", value: value) }
        if let port {
            guard !port.isEmpty, port.count <= 5, port.allSatisfy({ $0.isASCII && $0.isNumber }), let number = Int(port),
                  number <= 65535
            else { throw RuleViolation("\(field) has an invalid port", value: value) }
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
