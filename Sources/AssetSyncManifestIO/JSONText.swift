package import AssetSyncModel
import AssetSyncSystem
import Glibc

/// The bytes of a JSON document read one token at a time, with the line and
/// column of the next byte, for `JSONManifestReader`.
package struct JSONText {
    private let input: ManifestInput
    private var buffer = [UInt8](repeating: 0, count: 64 << 10)
    private var index = 0
    private var end = 0
    private var atEnd = false
    private var scratch: [UInt8] = []
    package private(set) var position = SourcePosition(line: 1, column: 1)

    package init(input: ManifestInput) {
        self.input = input
    }

    package var name: String { input.name }

    package func failure(_ violation: RuleViolation, at position: SourcePosition? = nil, entry: Int? = nil) -> ManifestError {
        ManifestError(
            manifest: input.name, position: position ?? self.position, entry: entry.map { "files[\($0)]" },
            problem: violation.problem, value: violation.value, remedy: violation.remedy)
    }

    /// The next byte, without consuming it; nil at the end of the document.
    @inline(__always)
    mutating func peek() throws(ManifestError) -> UInt8? {
        if index < end { return buffer[index] }
        return try refill() ? buffer[index] : nil
    }

    @inline(__always)
    private mutating func advance(over byte: UInt8) {
        index += 1
        if byte == 0x0A {
            position.line += 1
            position.column = 1
        } else if byte & 0xC0 != 0x80 {
            position.column += 1
        }
    }

    private mutating func refill() throws(ManifestError) -> Bool {
        guard !atEnd else { return false }
        let count = try buffer.withMutableBytes { bytes throws(ManifestError) in try input.read(into: bytes) }
        index = 0
        end = count
        if count == 0 { atEnd = true }
        return count > 0
    }

    /// JSON texts may start with a UTF-8 byte order mark (RFC 8259 §8.1 lets a reader ignore it).
    mutating func skipByteOrderMark() throws(ManifestError) {
        for byte in ManifestInput.byteOrderMark {
            guard try peek() == byte else { return }
            index += 1
        }
    }

    mutating func skipWhitespace() throws(ManifestError) {
        while true {
            while index < end, ManifestInput.isBlank(buffer[index]) { advance(over: buffer[index]) }
            guard index == end, try refill() else { return }
        }
    }

    mutating func expect(_ wanted: UInt8, entry: Int?) throws(ManifestError) {
        guard let byte = try peek(), byte == wanted else {
            let found = try peek().map { "\(QuotedValue.quote(bytes: [$0]))" } ?? "the end of the document"
            throw failure(RuleViolation("expected \"\(UnicodeScalar(wanted))\" but found \(found)"), entry: entry)
        }
        advance(over: byte)
    }

    /// What kind of JSON value starts at the next byte, for error messages.
    mutating func kindOfValue() throws(ManifestError) -> String {
        guard let byte = try peek() else { return "nothing" }
        switch byte {
        case UInt8(ascii: "{"): return "an object"
        case UInt8(ascii: "["): return "an array"
        case UInt8(ascii: "\""): return "a string"
        case UInt8(ascii: "t"), UInt8(ascii: "f"): return "a boolean"
        case UInt8(ascii: "n"): return "null"
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return "a number"
        default: return QuotedValue.quote(bytes: [byte])
        }
    }

    /// Reads a number token and returns its text, leaving its meaning to the field's rule.
    mutating func readNumber(field: String, entry: Int?) throws(ManifestError) -> String {
        let signs = [UInt8(ascii: "-"), UInt8(ascii: "+"), UInt8(ascii: ".")]
        guard let first = try peek(), signs.contains(first) || (first >= 0x30 && first <= 0x39) else {
            throw failure(RuleViolation("\(field) must be a JSON number, not \(try kindOfValue())"), entry: entry)
        }
        let start = position
        scratch.removeAll(keepingCapacity: true)
        while let byte = try peek() {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "+"), UInt8(ascii: "."),
                 UInt8(ascii: "e"), UInt8(ascii: "E"):
                guard scratch.count < 64 else {
                    throw failure(RuleViolation("\(field) is too long to be a number"), at: start, entry: entry)
                }
                scratch.append(byte)
                advance(over: byte)
            default:
                return try validNumber(field: field, at: start, entry: entry)
            }
        }
        return try validNumber(field: field, at: start, entry: entry)
    }

    /// The number grammar of RFC 8259: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
    private func validNumber(field: String, at start: SourcePosition, entry: Int?) throws(ManifestError) -> String {
        let text = String(decoding: scratch, as: UTF8.self)
        var rest = scratch[...]
        func digits() -> Int {
            let count = rest.prefix { $0 >= 0x30 && $0 <= 0x39 }.count
            rest = rest.dropFirst(count)
            return count
        }
        if rest.first == UInt8(ascii: "-") { rest = rest.dropFirst() }
        let leadingZero = rest.first == UInt8(ascii: "0")
        let integerDigits = digits()
        var valid = integerDigits > 0 && !(leadingZero && integerDigits > 1)
        if valid, rest.first == UInt8(ascii: ".") {
            rest = rest.dropFirst()
            valid = digits() > 0
        }
        if valid, rest.first == UInt8(ascii: "e") || rest.first == UInt8(ascii: "E") {
            rest = rest.dropFirst()
            if rest.first == UInt8(ascii: "+") || rest.first == UInt8(ascii: "-") { rest = rest.dropFirst() }
            valid = digits() > 0
        }
        guard valid, rest.isEmpty else {
            throw failure(RuleViolation("\(field) is not a valid JSON number", value: QuotedValue.quote(text)), at: start, entry: entry)
        }
        return text
    }

    /// Reads a string token, decoding escapes; the result must be valid UTF-8.
    mutating func readString(field: String, entry: Int?, maximumBytes: Int = Int.max) throws(ManifestError) -> String {
        if let string = quickString(maximumBytes: maximumBytes) { return string }
        let start = position
        try readStringBytes(field: field, entry: entry, maximumBytes: maximumBytes)
        guard let string = String(validating: scratch, as: UTF8.self) else {
            throw failure(
                RuleViolation("\(field) is not valid UTF-8", value: QuotedValue.quote(bytes: scratch)), at: start, entry: entry)
        }
        return string
    }

    /// Reads an object key and returns its index in `keys`, or nil and the key for an unknown one.
    mutating func readKey(among keys: [String], entry: Int?) throws(ManifestError) -> (index: Int?, key: String) {
        if let index = quickKey(among: keys) { return (index, keys[index]) }
        try readStringBytes(field: "key", entry: entry)
        for (index, key) in keys.enumerated() where key.utf8.elementsEqual(scratch) { return (index, key) }
        return (nil, String(decoding: scratch, as: UTF8.self))
    }

    /// The common case of a string token, read in place: it lies whole in the buffer and holds
    /// no escape or control character. Returns the length of its content (the bytes after the
    /// opening quote at `index`), or nil when the token is anything else; consumes nothing.
    @inline(__always)
    private func plainStringLength(in bytes: UnsafeBufferPointer<UInt8>) -> (count: Int, columns: Int, isASCII: Bool)? {
        guard index < end, bytes[index] == UInt8(ascii: "\"") else { return nil }
        var stop = index + 1
        var columns = 0
        var union: UInt8 = 0
        while stop < end {
            let byte = bytes[stop]
            if byte == UInt8(ascii: "\"") { return (stop - index - 1, columns, union < 0x80) }
            if byte == UInt8(ascii: "\\") || byte < 0x20 { return nil }
            union |= byte
            if byte & 0xC0 != 0x80 { columns += 1 }
            stop += 1
        }
        return nil
    }

    /// Consumes a plain string token of `count` content bytes and `columns` characters.
    @inline(__always)
    private mutating func skipPlainString(count: Int, columns: Int) {
        index += count + 2
        position.column += columns + 2
    }

    /// `readString` for a plain string token (see `plainStringLength`) that `readString` would
    /// accept; nil, consuming nothing, for any other.
    private mutating func quickString(maximumBytes: Int) -> String? {
        let found: (String, Int, Int)? = buffer.withUnsafeBufferPointer { bytes in
            guard let (count, columns, isASCII) = plainStringLength(in: bytes),
                  !(count > maximumBytes &* 16)  // readString's limit for overlong strings
            else { return nil }
            let content = UnsafeBufferPointer(rebasing: bytes[(index + 1)..<(index + 1 + count)])
            if isASCII { return (String(decoding: content, as: UTF8.self), count, columns) }
            guard let string = String(validating: content, as: UTF8.self) else { return nil }
            return (string, count, columns)
        }
        guard let (string, count, columns) = found else { return nil }
        skipPlainString(count: count, columns: columns)
        return string
    }

    /// `readKey` for a plain string token that is one of `keys`; nil, consuming nothing, otherwise.
    private mutating func quickKey(among keys: [String]) -> Int? {
        let found: (Int, Int, Int)? = buffer.withUnsafeBufferPointer { bytes in
            guard let (count, columns, _) = plainStringLength(in: bytes) else { return nil }
            for (keyIndex, key) in keys.enumerated() where key.utf8.count == count {
                var key = key
                let equal = key.withUTF8 { memcmp($0.baseAddress!, bytes.baseAddress! + index + 1, count) == 0 }
                if equal { return (keyIndex, count, columns) }
            }
            return nil
        }
        guard let (key, count, columns) = found else { return nil }
        skipPlainString(count: count, columns: columns)
        return key
    }

    /// A `crc32` string of exactly 8 hex digits, read in place; nil, consuming nothing, for any
    /// other token, which `readString` and `ManifestRules.crc32` then explain.
    mutating func quickCRC32() -> UInt32? {
        let found: UInt32? = buffer.withUnsafeBufferPointer { bytes in
            guard let (count, _, _) = plainStringLength(in: bytes), count == 8 else { return nil }
            return ManifestRules.plainCRC32(UnsafeBufferPointer(rebasing: bytes[(index + 1)..<(index + 9)]))
        }
        guard let found else { return nil }
        skipPlainString(count: 8, columns: 8)
        return found
    }

    /// A number token of 1 to 18 digits without a leading zero, lying whole in the buffer: its
    /// value, consumed. Nil, consuming nothing, for any other token, which `readNumber` and the
    /// field's rule then read and explain.
    mutating func quickInteger() -> Int64? {
        let found: (Int64, Int)? = buffer.withUnsafeBufferPointer { bytes in
            var stop = index
            var value: Int64 = 0
            while stop < end {
                let digit = bytes[stop] &- UInt8(ascii: "0")
                guard digit < 10 else { break }
                guard stop - index < 18 else { return nil }
                value = value * 10 + Int64(digit)
                stop += 1
            }
            let count = stop - index
            guard count > 0, stop < end, !(count > 1 && bytes[index] == UInt8(ascii: "0")) else { return nil }
            switch bytes[stop] {
            case UInt8(ascii: "-"), UInt8(ascii: "+"), UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E"): return nil
            default: return (value, count)
            }
        }
        guard let (value, count) = found else { return nil }
        index += count
        position.column += count
        return value
    }

    /// Reads a string token into `scratch`, decoding escapes.
    private mutating func readStringBytes(field: String, entry: Int?, maximumBytes: Int = 4096) throws(ManifestError) {
        guard try peek() == UInt8(ascii: "\"") else {
            throw failure(RuleViolation("\(field) must be a string, not \(try kindOfValue())"), entry: entry)
        }
        let start = position
        advance(over: UInt8(ascii: "\""))
        scratch.removeAll(keepingCapacity: true)
        while true {
            if index < end {
                // Fast path: copy the plain run of bytes up to a quote, backslash or control character.
                var stop = index
                while stop < end {
                    let byte = buffer[stop]
                    if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte < 0x20 { break }
                    stop += 1
                }
                if stop > index {
                    for byte in buffer[index..<stop] where byte & 0xC0 != 0x80 { position.column += 1 }
                    scratch.append(contentsOf: buffer[index..<stop])
                    index = stop
                    if scratch.count > maximumBytes &* 16 {  // far too long: refuse without reading it all
                        let shown = QuotedValue.quote(bytes: scratch.prefix(QuotedValue.maximumCharacters))
                        throw failure(
                            RuleViolation(
                                "\(field) must be at most \(maximumBytes) bytes long",
                                value: shown + "… (more than \(scratch.count) bytes)"),
                            at: start, entry: entry)
                    }
                    continue
                }
            }
            let at = position
            guard let byte = try peek() else {
                throw failure(RuleViolation("\(field) is an unterminated string"), at: start, entry: entry)
            }
            if byte < 0x20 {
                throw failure(
                    RuleViolation("\(field) has a raw control character; JSON strings must escape it", value: QuotedValue.quote(bytes: [byte])),
                    at: at, entry: entry)
            }
            advance(over: byte)
            switch byte {
            case UInt8(ascii: "\""):
                return
            case UInt8(ascii: "\\"):
                try readEscape(field: field, entry: entry, at: at)
            default:
                scratch.append(byte)
            }
        }
    }

    /// Decodes the escape whose backslash, at `at`, was just read.
    private mutating func readEscape(field: String, entry: Int?, at: SourcePosition) throws(ManifestError) {
        guard let byte = try peek() else {
            throw failure(RuleViolation("\(field) is an unterminated string"), entry: entry)
        }
        advance(over: byte)
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scratch.append(byte)
        case UInt8(ascii: "b"): scratch.append(0x08)
        case UInt8(ascii: "f"): scratch.append(0x0C)
        case UInt8(ascii: "n"): scratch.append(0x0A)
        case UInt8(ascii: "r"): scratch.append(0x0D)
        case UInt8(ascii: "t"): scratch.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = try readHex4(field: field, entry: entry)
            let unpaired = RuleViolation(
                "\(field) has an unpaired UTF-16 surrogate escape", value: QuotedValue.quote("\\u" + HexDigits.padded(scalar, width: 4)))
            if (0xD800..<0xDC00).contains(scalar) {
                guard try peek() == UInt8(ascii: "\\") else {
                    throw failure(unpaired, at: at, entry: entry)
                }
                advance(over: UInt8(ascii: "\\"))
                guard try peek() == UInt8(ascii: "u") else {
                    throw failure(unpaired, at: at, entry: entry)
                }
                advance(over: UInt8(ascii: "u"))
                let low = try readHex4(field: field, entry: entry)
                guard (0xDC00..<0xE000).contains(low) else {
                    throw failure(unpaired, at: at, entry: entry)
                }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00..<0xE000).contains(scalar) {
                throw failure(unpaired, at: at, entry: entry)
            }
            scratch.append(contentsOf: String(Character(UnicodeScalar(scalar)!)).utf8)
        default:
            throw failure(RuleViolation("\(field) has an invalid escape \"\\\(UnicodeScalar(byte))\""), at: at, entry: entry)
        }
    }

    private mutating func readHex4(field: String, entry: Int?) throws(ManifestError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let byte = try peek() else {
                throw failure(RuleViolation("\(field) has a truncated \\u escape"), entry: entry)
            }
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - 0x30
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - 0x61 + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - 0x41 + 10
            default: throw failure(RuleViolation("\(field) has an invalid \\u escape"), entry: entry)
            }
            advance(over: byte)
            value = value << 4 | UInt32(digit)
        }
        return value
    }
}
