/// Lowercase hexadecimal with leading zeros, as assetsync writes CRCs, hashes and escapes.
package enum HexDigits {
    /// `value` in lowercase hex, padded with zeros to at least `width` digits.
    package static func padded(_ value: some BinaryInteger, width: Int) -> String {
        let digits = String(value, radix: 16)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }
}
