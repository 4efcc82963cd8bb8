/// The per-field rules of a manifest (README, "The manifest"), shared by the XML and JSON readers.
/// Each check works on the raw text and throws the rule it broke.
package enum ManifestRules {
    package static let maximumPathBytes = 4096
    static let maximumComponentBytes = 255

    package static func version(_ text: String) throws(RuleViolation) -> Int {
        guard text == "1" else {
            if !text.isEmpty, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) {
                throw RuleViolation(
                    "version \(text) is not supported; this assetsync reads version \(Manifest.supportedVersion)")
            }
            throw RuleViolation("version must be the number \(Manifest.supportedVersion)", value: QuotedValue.quote(text))
        }
        return Manifest.supportedVersion
    }

    package static func path(_ text: String) throws(RuleViolation) -> String {
        var bytes = text
        if let rule = bytes.withUTF8({ brokenPathRule($0) }) {
            if rule.isEmpty { throw RuleViolation("path must not be empty") }
            throw RuleViolation(rule, value: QuotedValue.quote(text))
        }
        return text
    }

    /// Whether `bytes` are a path these rules allow: for paths read from anywhere but a manifest (a state
    /// index), which must name no more than a manifest could (no `..`, nothing absolute or under `.assetsync/`).
    package static func isValidPath(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool { brokenPathRule(bytes) == nil }

    /// The first path rule `bytes` break, phrased with the field, "" for an empty path; nil when it is valid.
    private static func brokenPathRule(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        guard !bytes.isEmpty else { return "" }
        guard bytes[0] != UInt8(ascii: "/") else { return "path must be relative, not absolute" }
        guard bytes.count <= maximumPathBytes else { return "path must be at most \(maximumPathBytes) bytes long" }
        var componentLength = 0
        var dots = 0
        var previous: UInt8 = 0
        for byte in bytes {
            switch byte {
            case 0..<0x20, 0x7F:
                return "path must not contain control characters"
            case 0x80...0x9F where previous == 0xC2:
                return "path must not contain control characters"
            case UInt8(ascii: "\\"):
                return "path must not contain a backslash"
            case UInt8(ascii: "/"):
                if let rule = brokenComponentRule(length: componentLength, dots: dots) { return rule }
                componentLength = 0
                dots = 0
            default:
                componentLength += 1
                if byte == UInt8(ascii: ".") { dots += 1 }
            }
            previous = byte
        }
        if let rule = brokenComponentRule(length: componentLength, dots: dots) { return rule }
        let reserved = CacheNames.metadataBytes
        let reservedCount = reserved.utf8CodeUnitCount
        if bytes.count >= reservedCount, RawBytes.equal(bytes.baseAddress!, reserved.utf8Start, count: reservedCount),
           bytes.count == reservedCount || bytes[reservedCount] == UInt8(ascii: "/") {
            return "path must not be under \(CacheNames.metadata)/, which assetsync keeps for itself"
        }
        return nil
    }

    private static func brokenComponentRule(length: Int, dots: Int) -> String? {
        if length == 0 { return "path must not have an empty component (\"//\" or a trailing \"/\")" }
        if length == dots, dots <= 2 { return "path must not have a \".\" or \"..\" component" }
        if length > maximumComponentBytes { return "path components must be at most \(maximumComponentBytes) bytes long" }
        return nil
    }

    /// A size is written as plain decimal digits: no sign, fraction or exponent.
    package static func size(_ text: String) throws(RuleViolation) -> Int64 {
        var value: String { QuotedValue.quote(text) }
        let bytes = text.utf8
        guard !bytes.isEmpty else { throw RuleViolation("size must not be empty") }
        if bytes.first == UInt8(ascii: "-") { throw RuleViolation("size must not be negative", value: value) }
        var result: Int64 = 0
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                let (times10, overflow1) = result.multipliedReportingOverflow(by: 10)
                let (sum, overflow2) = times10.addingReportingOverflow(Int64(byte - UInt8(ascii: "0")))
                if overflow1 || overflow2 {
                    throw RuleViolation("size must fit in a signed 64-bit integer (at most \(Int64.max))", value: value)
                }
                result = sum
            case UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E"):
                throw RuleViolation("size must be a whole number of bytes, without fraction or exponent", value: value)
            default:
                throw RuleViolation("size must be a non-negative decimal integer", value: value)
            }
        }
        return result
    }

    /// The size `bytes` spell when they are 1 to 18 decimal digits (which cannot overflow), else nil:
    /// a reader's shortcut for the common case, leaving every other text to `size(_:)`.
    @inline(__always)
    package static func plainSize(_ bytes: UnsafeBufferPointer<UInt8>) -> Int64? {
        guard bytes.count > 0, bytes.count <= 18 else { return nil }
        var result: Int64 = 0
        for byte in bytes {
            let digit = byte &- UInt8(ascii: "0")
            guard digit < 10 else { return nil }
            result = result * 10 + Int64(digit)
        }
        return result
    }

    package static func crc32(_ text: String) throws(RuleViolation) -> UInt32 {
        var value: String { QuotedValue.quote(text) }
        var result: UInt32 = 0
        for byte in text.utf8 {
            guard let digit = hexDigit(byte) else {
                throw RuleViolation("crc32 must be hexadecimal (8 digits, no \"0x\")", value: value)
            }
            result = result << 4 | UInt32(digit)
        }
        guard text.utf8.count == 8 else { throw RuleViolation("crc32 must be exactly 8 hex digits", value: value) }
        return result
    }

    package static func sha256(_ text: String) throws(RuleViolation) -> SHA256Digest {
        guard let digest = SHA256Digest(hexDigits: text.utf8) else {
            throw RuleViolation("sha256 must be exactly 64 hex digits", value: QuotedValue.quote(text))
        }
        return digest
    }

    /// The CRC `bytes` spell when they are exactly 8 hex digits, else nil (see `plainSize`).
    @inline(__always)
    package static func plainCRC32(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt32? {
        guard bytes.count == 8 else { return nil }
        var result: UInt32 = 0
        for byte in bytes {
            guard let digit = hexDigit(byte) else { return nil }
            result = result << 4 | UInt32(digit)
        }
        return result
    }

    @inline(__always)
    private static func hexDigit(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
