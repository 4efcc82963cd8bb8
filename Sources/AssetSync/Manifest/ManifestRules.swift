/// The per-field rules of DESIGN.md §1, shared by the XML and JSON readers.
/// Each check works on the raw text and throws the rule it broke.
enum ManifestRules {
    static let maximumPathBytes = 4096
    static let maximumComponentBytes = 255
    static let reservedDirectory = ".assetsync"

    static func version(_ text: String) throws(RuleViolation) -> Int {
        guard text == "1" else {
            if !text.isEmpty, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) {
                throw RuleViolation(
                    "version \(text) is not supported; this assetsync reads version \(Manifest.supportedVersion)")
            }
            throw RuleViolation("version must be the number \(Manifest.supportedVersion)", value: QuotedValue.quote(text))
        }
        return Manifest.supportedVersion
    }

    static func path(_ text: String) throws(RuleViolation) -> String {
        let bytes = text.utf8
        func broken(_ rule: String) -> RuleViolation { RuleViolation("path " + rule, value: QuotedValue.quote(text)) }
        guard !bytes.isEmpty else { throw RuleViolation("path must not be empty") }
        guard bytes.first != UInt8(ascii: "/") else { throw broken("must be relative, not absolute") }
        guard bytes.count <= maximumPathBytes else { throw broken("must be at most \(maximumPathBytes) bytes long") }
        var componentLength = 0
        var dots = 0
        var previous: UInt8 = 0
        for byte in bytes {
            switch byte {
            case 0..<0x20, 0x7F:
                throw broken("must not contain control characters")
            case 0x80...0x9F where previous == 0xC2:
                throw broken("must not contain control characters")
            case UInt8(ascii: "\\"):
                throw broken("must not contain a backslash")
            case UInt8(ascii: "/"):
                try checkComponent(length: componentLength, dots: dots, text: text)
                componentLength = 0
                dots = 0
            default:
                componentLength += 1
                if byte == UInt8(ascii: ".") { dots += 1 }
            }
            previous = byte
        }
        try checkComponent(length: componentLength, dots: dots, text: text)
        if text.utf8.starts(with: reservedDirectory.utf8),
           text.utf8.count == reservedDirectory.utf8.count || text.utf8.dropFirst(reservedDirectory.utf8.count).first == UInt8(ascii: "/") {
            throw broken("must not be under \(reservedDirectory)/, which assetsync keeps for itself")
        }
        return text
    }

    private static func checkComponent(length: Int, dots: Int, text: String) throws(RuleViolation) {
        var value: String { QuotedValue.quote(text) }
        if length == 0 { throw RuleViolation("path must not have an empty component (\"//\" or a trailing \"/\")", value: value) }
        if length == dots, dots <= 2 { throw RuleViolation("path must not have a \".\" or \"..\" component", value: value) }
        if length > maximumComponentBytes {
            throw RuleViolation("path components must be at most \(maximumComponentBytes) bytes long", value: value)
        }
    }

    /// A size is written as plain decimal digits: no sign, fraction or exponent.
    static func size(_ text: String) throws(RuleViolation) -> Int64 {
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

    static func crc32(_ text: String) throws(RuleViolation) -> UInt32 {
        var value: String { QuotedValue.quote(text) }
        var result: UInt32 = 0
        for byte in text.utf8 {
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw RuleViolation("crc32 must be hexadecimal (8 digits, no \"0x\")", value: value)
            }
            result = result << 4 | UInt32(digit)
        }
        guard text.utf8.count == 8 else { throw RuleViolation("crc32 must be exactly 8 hex digits", value: value) }
        return result
    }
}
