/// Text a server chose (header values, curl's error text, redirect targets) on its way to a terminal.
extension QuotedValue {
    /// A value from a response, for a message: as it is when it is short printable ASCII, else quoted.
    package static func serverValue(_ text: String) -> String {
        let plain = text.utf8.count <= maximumCharacters && text.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F }
        return plain ? text : quote(text)
    }

    /// `text` with every control and format character written as `\u{1b}`: the last guard of
    /// human output, so that no byte a server sent can act on the terminal.
    package static func escapingControls(_ text: String) -> String {
        let unsafe = { (scalar: Unicode.Scalar) in
            scalar.value < 0x20 || scalar.value == 0x7F
                || scalar.properties.generalCategory == .control || scalar.properties.generalCategory == .format
        }
        guard text.unicodeScalars.contains(where: unsafe) else { return text }
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if unsafe(scalar) {
                out.append(contentsOf: "\\u{\(String(scalar.value, radix: 16))}".unicodeScalars)
            } else {
                out.append(scalar)
            }
        }
        return String(out)
    }
}
