/// Standard Base64 (RFC 4648, `+/`, padded), as minisign writes keys and signatures.
/// Decoding is strict: any other byte, a missing pad or stray bits after the last byte is refused.
package enum Base64 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// The value of each byte in the alphabet; 0xFF for every other byte.
    private static let values: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (index, byte) in alphabet.enumerated() { table[Int(byte)] = UInt8(index) }
        return table
    }()

    package static func encode(_ bytes: [UInt8]) -> String {
        var text: [UInt8] = []
        text.reserveCapacity((bytes.count + 2) / 3 * 4)
        var index = 0
        while index < bytes.count {
            let count = min(3, bytes.count - index)
            let group = (0..<3).reduce(UInt32(0)) { $0 << 8 | UInt32($1 < count ? bytes[index + $1] : 0) }
            for position in 0..<4 {
                text.append(position <= count ? alphabet[Int(group >> (18 - 6 * UInt32(position)) & 0x3F)] : UInt8(ascii: "="))
            }
            index += 3
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// The bytes `text` spells, or nil when it is not strict, padded Base64.
    package static func decode(_ text: some StringProtocol) -> [UInt8]? {
        let characters = Array(text.utf8)
        guard characters.count % 4 == 0 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(characters.count / 4 * 3)
        var index = 0
        while index < characters.count {
            let last = index + 4 == characters.count
            let padding = last ? characters[index..<index + 4].reversed().prefix { $0 == UInt8(ascii: "=") }.count : 0
            guard padding <= 2 else { return nil }
            var group: UInt32 = 0
            for position in 0..<4 {
                let character = characters[index + position]
                let value = position < 4 - padding ? values[Int(character)] : 0
                guard value != 0xFF else { return nil }
                group = group << 6 | UInt32(value)
            }
            let produced = 3 - padding
            // The bits below the last byte must be zero, so that one byte string has one spelling.
            guard group & ((1 << (8 * UInt32(3 - produced))) - 1) == 0 else { return nil }
            for position in 0..<produced { bytes.append(UInt8(truncatingIfNeeded: group >> (16 - 8 * UInt32(position)))) }
            index += 4
        }
        return bytes
    }
}
