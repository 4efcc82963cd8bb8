/// FNV-1a, 64 bits: a fast hash for hash tables and file names, never for security.
package enum FNV1a {
    static let seed: UInt64 = 0xcbf2_9ce4_8422_2325

    /// `hash` with `byte` folded in.
    @inline(__always)
    static func mix(_ hash: UInt64, _ byte: UInt8) -> UInt64 { (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }

    package static func hash<Bytes: Sequence>(_ bytes: Bytes) -> UInt64 where Bytes.Element == UInt8 {
        var hash = seed
        for byte in bytes { hash = mix(hash, byte) }
        return hash
    }
}
