/// Builds one JSON object on one line, keys in the order they are added.
package struct JSONLine {
    private var text = "{"
    private var isEmpty = true

    package init(type: String) {
        add("type", type)
    }

    package mutating func add(_ key: String, _ value: String?) {
        appendKey(key)
        if let value { Self.appendQuoted(value, to: &text) } else { text += "null" }
    }

    package mutating func add(_ key: String, _ value: Int64?) {
        appendKey(key)
        text += value.map { String($0) } ?? "null"
    }

    package mutating func add(_ key: String, _ value: Int) { add(key, Int64(value)) }

    package mutating func add(_ key: String, _ value: Bool) {
        appendKey(key)
        text += value ? "true" : "false"
    }

    /// An array of objects whose values are strings, each object's keys in the order given.
    package mutating func add(_ key: String, objects: [[(key: String, value: String)]]) {
        appendKey(key)
        text += "["
        for (index, object) in objects.enumerated() {
            text += index == 0 ? "{" : ",{"
            for (field, (name, value)) in object.enumerated() {
                if field > 0 { text += "," }
                Self.appendQuoted(name, to: &text)
                text += ":"
                Self.appendQuoted(value, to: &text)
            }
            text += "}"
        }
        text += "]"
    }

    /// An object whose values are numbers, its keys in the order given.
    package mutating func add(_ key: String, object: [(key: String, value: Int64)]) {
        appendKey(key)
        text += "{"
        for (field, (name, value)) in object.enumerated() {
            if field > 0 { text += "," }
            Self.appendQuoted(name, to: &text)
            text += ":" + String(value)
        }
        text += "}"
    }

    /// The finished object and its newline.
    package var line: String { text + "}\n" }

    private mutating func appendKey(_ key: String) {
        if !isEmpty { text += "," }
        isEmpty = false
        Self.appendQuoted(key, to: &text)
        text += ":"
    }

    package static func appendQuoted(_ value: String, to out: inout String) {
        var buffer = OutputBuffer(capacity: value.utf8.count + 2)
        defer { buffer.deallocate() }
        appendQuoted(value, to: &buffer)
        out += buffer.take()
    }

    /// `value` as a JSON string: quotes, backslashes and control characters escaped, and
    /// U+2028 and U+2029 too (they end a line in JavaScript); everything else as it is.
    package static func appendQuoted(_ value: String, to out: inout OutputBuffer) {
        var value = value
        value.withUTF8 { bytes in
            out.append(UInt8(ascii: "\""))
            if bytes.allSatisfy({ $0 >= 0x20 && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") && $0 < 0x7F }) {
                out.append(bytes)
            } else {
                appendEscaped(bytes, to: &out)
            }
            out.append(UInt8(ascii: "\""))
        }
    }

    /// Escapes valid UTF-8 byte by byte: every byte that needs it is ASCII, but for
    /// U+2028 and U+2029 (E2 80 A8, E2 80 A9).
    private static func appendEscaped(_ bytes: UnsafeBufferPointer<UInt8>, to out: inout OutputBuffer) {
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""): out.append("\\\"")
            case UInt8(ascii: "\\"): out.append("\\\\")
            case UInt8(ascii: "\n"): out.append("\\n")
            case UInt8(ascii: "\r"): out.append("\\r")
            case UInt8(ascii: "\t"): out.append("\\t")
            case 0..<0x20, 0x7F: appendUnicodeEscape(UInt32(byte), to: &out)
            case 0xE2 where index + 1 < bytes.count && bytes[index] == 0x80 && (bytes[index + 1] == 0xA8 || bytes[index + 1] == 0xA9):
                appendUnicodeEscape(bytes[index + 1] == 0xA8 ? 0x2028 : 0x2029, to: &out)
                index += 2
            default: out.append(byte)
            }
        }
    }

    /// `\u` and four lowercase hex digits.
    private static func appendUnicodeEscape(_ value: UInt32, to out: inout OutputBuffer) {
        let digits: StaticString = "0123456789abcdef"
        out.append("\\u")
        for shift in stride(from: 12, through: 0, by: -4) {
            out.append(digits.utf8Start[Int(value >> UInt32(shift) & 0xF)])
        }
    }
}
