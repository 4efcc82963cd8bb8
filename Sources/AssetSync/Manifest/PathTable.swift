import Glibc

/// A hash set of byte strings that are paths, or prefixes of paths, of a
/// manifest's entries: each member is stored as (entry index, length), never
/// copied. Built for one job: checking a million paths for duplicates and
/// file/directory clashes in well under a second, which Swift's `Dictionary`
/// of `String` (SipHash, a copy per prefix) did not.
struct PathTable {
    private var entry: [Int32]
    private var length: [Int32]
    private var hashes: [UInt64]
    private let mask: Int

    init(capacity: Int) {
        var size = 16
        while size < capacity * 2 { size <<= 1 }
        entry = Array(repeating: -1, count: size)
        length = Array(repeating: 0, count: size)
        hashes = Array(repeating: 0, count: size)
        mask = size - 1
    }

    /// FNV-1a, 64 bits: fast, and good enough for a table that compares bytes on a match.
    static let seed: UInt64 = 0xcbf2_9ce4_8422_2325
    @inline(__always)
    static func mix(_ hash: UInt64, _ byte: UInt8) -> UInt64 { (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }

    /// Inserts the first `count` bytes of entry `index`'s path unless an equal member exists;
    /// returns the entry index of that member, or nil when inserted.
    mutating func insert(
        _ bytes: UnsafeBufferPointer<UInt8>, count: Int, hash: UInt64, entry index: Int, paths: [String]
    ) -> Int? {
        if let found = find(bytes, count: count, hash: hash, paths: paths) { return found.entry }
        var slot = Int(truncatingIfNeeded: hash) & mask
        while entry[slot] >= 0 { slot = (slot + 1) & mask }
        entry[slot] = Int32(index)
        length[slot] = Int32(count)
        hashes[slot] = hash
        return nil
    }

    /// The member equal to the first `count` bytes, if any.
    func find(
        _ bytes: UnsafeBufferPointer<UInt8>, count: Int, hash: UInt64, paths: [String]
    ) -> (entry: Int, slot: Int)? {
        var slot = Int(truncatingIfNeeded: hash) & mask
        while entry[slot] >= 0 {
            if hashes[slot] == hash, Int(length[slot]) == count {
                let other = Int(entry[slot])
                let equal = paths[other].utf8.withContiguousStorageIfAvailable { stored in
                    memcmp(stored.baseAddress!, bytes.baseAddress!, count) == 0
                } ?? paths[other].utf8.prefix(count).elementsEqual(bytes.prefix(count))
                if equal { return (other, slot) }
            }
            slot = (slot + 1) & mask
        }
        return nil
    }
}
