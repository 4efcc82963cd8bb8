/// SplitMix64: a fixed-seed random number generator, so that a randomized test printing its seed
/// can be replayed.
public struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A generator for one item of a run seeded with `seed`, the same whatever order items are drawn in.
    public static func forItem(seed: UInt64, _ parts: [String]) -> SeededGenerator {
        // FNV-1a over the parts, mixed with the seed.
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325 ^ seed
        for part in parts {
            for byte in part.utf8 + [0] {
                hash ^= UInt64(byte)
                hash &*= 0x0000_0100_0000_01B3
            }
        }
        return SeededGenerator(seed: hash)
    }
}
