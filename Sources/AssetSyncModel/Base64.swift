/// Standard base64 (RFC 4648 §4, with padding), strict: one spelling per byte string, so that
/// a chunk list or a minisign key cannot be written two ways and no stray character is guessed at.
package enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// The value of each byte as a base64 digit, 0xFF for a byte that is none.
    private static let values: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (index, byte) in alphabet.enumerated() { table[Int(byte)] = UInt8(index) }
        return table
    }()

    package static func encode(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var index = 0
        while index < bytes.count {
            let count = min(3, bytes.count - index)
            var group = UInt32(bytes[index]) << 16
            if count > 1 { group |= UInt32(bytes[index + 1]) << 8 }
            if count > 2 { group |= UInt32(bytes[index + 2]) }
            for digit in 0..<4 {
                out.append(digit <= count ? alphabet[Int(group >> (18 - 6 * UInt32(digit)) & 0x3F)] : UInt8(ascii: "="))
            }
            index += 3
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The bytes `text` spells; nil with the reason when it is not strict base64 (a length that
    /// is not a multiple of 4, a character outside the alphabet, misplaced padding, or padding
    /// bits that are not zero).
    package static func decode(_ text: some Sequence<UInt8>) -> Result<[UInt8], Base64Error> {
        let digits = Array(text)
        guard digits.count % 4 == 0 else { return .failure(.length(digits.count)) }
        var out: [UInt8] = []
        out.reserveCapacity(digits.count / 4 * 3)
        var index = 0
        while index < digits.count {
            let isLast = index + 4 == digits.count
            var padding = 0
            var group: UInt32 = 0
            for offset in 0..<4 {
                let byte = digits[index + offset]
                if byte == UInt8(ascii: "="), isLast, offset >= 2 {
                    padding += 1
                    group <<= 6
                    continue
                }
                let value = values[Int(byte)]
                guard value != 0xFF, padding == 0 else { return .failure(.character(at: index + offset)) }
                group = group << 6 | UInt32(value)
            }
            guard padding < 3 else { return .failure(.character(at: index + 2)) }
            let mask: UInt32 = padding == 2 ? 0xFFFF : padding == 1 ? 0xFF : 0
            guard group & mask == 0 else { return .failure(.paddingBits) }
            out.append(UInt8(truncatingIfNeeded: group >> 16))
            if padding < 2 { out.append(UInt8(truncatingIfNeeded: group >> 8)) }
            if padding < 1 { out.append(UInt8(truncatingIfNeeded: group)) }
            index += 4
        }
        return .success(out)
    }
}
