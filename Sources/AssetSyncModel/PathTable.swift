/// A hash set of byte strings that are paths, or prefixes of paths, of a
/// manifest's entries: each member is stored as (entry index, length, hash),
/// never copied. Built for one job: checking a million paths for duplicates
/// and file/directory clashes in well under a second, which Swift's
/// `Dictionary` of `String` (SipHash, a copy per prefix) did not.
package struct PathTable {
    /// One slot: a probe reads one 16-byte record, not three arrays.
    private struct Slot {
        var entry: Int32 = -1
        var length: Int32 = 0
        var hash: UInt64 = 0
    }

    /// The byte strings members are prefixes of: each entry's path in its canonical form.
    package struct Keys {
        package let entries: UnsafeBufferPointer<ManifestEntry>
        /// The canonical forms of the paths that are not ASCII.
        let canonicalForms: [Int: String]

        @inline(__always)
        package func key(_ index: Int) -> String {
            canonicalForms.isEmpty ? entries[index].path : canonicalForms[index] ?? entries[index].path
        }
    }

    private var slots: [Slot]
    private var mask: Int
    private var count = 0

    /// A table for `capacity` members; it grows when more are inserted.
    package init(capacity: Int) {
        var size = 16
        while size < capacity * 2 { size <<= 1 }
        slots = Array(repeating: Slot(), count: size)
        mask = size - 1
    }

    /// Inserts the first `count` bytes of entry `index`'s key unless an equal member exists;
    /// returns the entry index of that member, or nil when inserted.
    package mutating func insert(
        prefixOf index: Int, count: Int, hash: UInt64, in keys: Keys
    ) -> Int? {
        if let found = find(prefixOf: index, count: count, hash: hash, in: keys) { return found }
        if (self.count + 1) * 2 > slots.count { grow() }
        slots.withUnsafeMutableBufferPointer { slots in
            var slot = Int(truncatingIfNeeded: hash) & mask
            while slots[slot].entry >= 0 { slot = (slot + 1) & mask }
            slots[slot] = Slot(entry: Int32(index), length: Int32(count), hash: hash)
        }
        self.count += 1
        return nil
    }

    /// The entry index of the member equal to the first `count` bytes of entry `index`'s key, if any.
    /// Keys are read only when the hashes and lengths match.
    func find(
        prefixOf index: Int, count: Int, hash: UInt64, in keys: Keys
    ) -> Int? {
        slots.withUnsafeBufferPointer { slots in
            var slot = Int(truncatingIfNeeded: hash) & mask
            while slots[slot].entry >= 0 {
                if slots[slot].hash == hash, Int(slots[slot].length) == count {
                    let other = Int(slots[slot].entry)
                    if Self.prefixesEqual(keys.key(index), keys.key(other), count: count) { return other }
                }
                slot = (slot + 1) & mask
            }
            return nil
        }
    }

    private static func prefixesEqual(_ a: String, _ b: String, count: Int) -> Bool {
        var a = a
        var b = b
        return a.withUTF8 { a in b.withUTF8 { b in RawBytes.equal(a.baseAddress!, b.baseAddress!, count: count) } }
    }

    /// Doubles the table, placing every member again by its stored hash.
    private mutating func grow() {
        let old = slots
        slots = Array(repeating: Slot(), count: old.count * 2)
        mask = slots.count - 1
        slots.withUnsafeMutableBufferPointer { slots in
            for member in old where member.entry >= 0 {
                var slot = Int(truncatingIfNeeded: member.hash) & mask
                while slots[slot].entry >= 0 { slot = (slot + 1) & mask }
                slots[slot] = member
            }
        }
    }
}
