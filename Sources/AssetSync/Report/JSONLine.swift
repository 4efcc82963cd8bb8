/// Builds one JSON object on one line, keys in the order they are added.
public struct JSONLine {
    private var text = "{"
    private var isEmpty = true

    public init(type: String) {
        add("type", type)
    }

    public mutating func add(_ key: String, _ value: String?) {
        appendKey(key)
        if let value { Self.appendQuoted(value, to: &text) } else { text += "null" }
    }

    public mutating func add(_ key: String, _ value: Int64?) {
        appendKey(key)
        text += value.map { String($0) } ?? "null"
    }

    public mutating func add(_ key: String, _ value: Int) { add(key, Int64(value)) }

    public mutating func add(_ key: String, _ value: Bool) {
        appendKey(key)
        text += value ? "true" : "false"
    }

    /// The finished object and its newline.
    public var line: String { text + "}\n" }

    private mutating func appendKey(_ key: String) {
        if !isEmpty { text += "," }
        isEmpty = false
        Self.appendQuoted(key, to: &text)
        text += ":"
    }

    static func appendQuoted(_ value: String, to out: inout String) {
        out += "\""
        let plain = value.utf8.allSatisfy { $0 >= 0x20 && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") && $0 < 0x7F }
        if plain {
            out += value
            out += "\""
            return
        }
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{0}"..."\u{1F}", "\u{7F}", "\u{2028}", "\u{2029}":
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }
}
