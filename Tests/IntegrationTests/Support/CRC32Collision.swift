import CZlib

/// Bytes of one's choosing that have another file's CRC-32: what anyone who can change a file in
/// transit can make in microseconds, since CRC-32 is affine over GF(2) in the message's bits.
enum CRC32Collision {
    static func crc(_ bytes: [UInt8]) -> UInt32 {
        bytes.withUnsafeBufferPointer { UInt32(CZlib.crc32(0, $0.baseAddress, uInt($0.count))) }
    }

    /// `forged` (at least 4 bytes) with its last 4 bytes replaced so that its CRC-32 is `target`.
    /// Flipping bit i of the tail changes the CRC by a fixed `effect[i]`; an XOR basis of those 32
    /// effects (they span all 32 bits) gives the tail bits whose effects add up to what is wanted.
    static func matching(_ target: UInt32, forged: [UInt8]) -> [UInt8] {
        precondition(forged.count >= 4)
        var bytes = forged
        let tail = bytes.count - 4
        func crc(withTail bits: UInt32) -> UInt32 {
            for index in 0..<4 { bytes[tail + index] = UInt8(truncatingIfNeeded: bits >> (8 * index)) }
            return Self.crc(bytes)
        }
        let base = crc(withTail: 0)
        var basis: [Int: (effect: UInt32, tail: UInt32)] = [:]  // by the effect's highest bit
        for bit in 0..<32 {
            var (effect, tailBits) = (crc(withTail: 1 << bit) ^ base, UInt32(1) << bit)
            while effect != 0 {
                let top = 31 - effect.leadingZeroBitCount
                guard let known = basis[top] else {
                    basis[top] = (effect, tailBits)
                    break
                }
                effect ^= known.effect
                tailBits ^= known.tail
            }
        }
        var (wanted, solution) = (target ^ base, UInt32(0))
        while wanted != 0 {
            let known = basis[31 - wanted.leadingZeroBitCount]!
            wanted ^= known.effect
            solution ^= known.tail
        }
        let total = crc(withTail: solution)
        precondition(total == target, "the forged CRC-32 must match")
        return bytes
    }
}
