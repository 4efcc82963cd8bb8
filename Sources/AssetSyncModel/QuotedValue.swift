/// Quotes a value taken from untrusted input for an error message: control
/// characters and invalid UTF-8 are escaped, and long values are shortened.
package enum QuotedValue {
    package static let maximumCharacters = 80

    package static func quote(_ text: String) -> String {
        quote(bytes: Array(text.utf8))
    }

    package static func quote<Bytes: Collection>(bytes: Bytes) -> String where Bytes.Element == UInt8 {
        var out = "\""
        var shown = 0
        var shortened = false
        var index = bytes.startIndex
        while index != bytes.endIndex {
            if shown >= maximumCharacters {
                shortened = true
                break
            }
            let (piece, next) = escapedCharacter(in: bytes, at: index)
            out += piece
            index = next
            shown += 1
        }
        out += "\""
        if shortened { out += "… (\(bytes.count) bytes)" }
        return out
    }

    /// Escapes one character starting at `index`, returning it and the index after it.
    private static func escapedCharacter<Bytes: Collection>(
        in bytes: Bytes, at index: Bytes.Index
    ) -> (String, Bytes.Index) where Bytes.Element == UInt8 {
        let byte = bytes[index]
        let next = bytes.index(after: index)
        switch byte {
        case UInt8(ascii: "\""): return ("\\\"", next)
        case UInt8(ascii: "\\"): return ("\\\\", next)
        case UInt8(ascii: "\n"): return ("\\n", next)
        case UInt8(ascii: "\r"): return ("\\r", next)
        case UInt8(ascii: "\t"): return ("\\t", next)
        case 0..<0x20, 0x7F: return ("\\u{\(hex(byte))}", next)
        case 0x20..<0x7F: return (String(UnicodeScalar(byte)), next)
        default: break
        }
        var end = next
        var sequence = [byte]
        let length = byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : byte >= 0xC0 ? 2 : 1
        while sequence.count < length, end != bytes.endIndex, bytes[end] & 0xC0 == 0x80 {
            sequence.append(bytes[end])
            end = bytes.index(after: end)
        }
        guard let decoded = String(validating: sequence, as: UTF8.self),
              let scalar = decoded.unicodeScalars.first
        else { return ("\\x\(hex(byte))", next) }
        if scalar.properties.generalCategory == .control || scalar.properties.generalCategory == .format {
            return ("\\u{\(String(scalar.value, radix: 16))}", end)
        }
        return (decoded, end)
    }

    private static func hex(_ byte: UInt8) -> String { HexDigits.padded(byte, width: 2) }
}

extension QuotedValue {
    /// A path as it is, unless it holds characters a terminal would act on; then quoted.
    package static func displayPath(_ path: String) -> String {
        if path.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) { return path }
        let plain = path.unicodeScalars.allSatisfy {
            $0.value >= 0x20 && $0.value != 0x7F && $0.properties.generalCategory != .control
                && $0.properties.generalCategory != .format
        }
        return plain ? path : quote(path)
    }
}
