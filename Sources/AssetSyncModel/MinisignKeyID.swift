/// The 8 random bytes that name a minisign key pair in its keys and signatures, printed as minisign
/// prints it: 16 uppercase hex digits of the bytes read as a little-endian number.
package struct MinisignKeyID: Hashable, Sendable, CustomStringConvertible {
    package static let byteCount = 8

    package let bytes: [UInt8]

    /// The id held by `bytes`, which must be exactly 8.
    package init(_ bytes: some Collection<UInt8>) {
        precondition(bytes.count == Self.byteCount, "a minisign key id is 8 bytes")
        self.bytes = Array(bytes)
    }

    package var description: String {
        let value = bytes.reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        let digits = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }
}
