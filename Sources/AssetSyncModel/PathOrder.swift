/// The one order assetsync sorts paths in: their UTF-8 bytes, as `memcmp` orders them. Unlike
/// `String`'s `<`, it tells an NFC spelling of a name from an NFD one, as the file system does,
/// and it needs no normalization: the state index is written in it and merge-joined in it.
package enum PathOrder {
    /// -1, 0 or 1 as `a`'s bytes sort before, equal or after `b`'s.
    @inline(__always)
    package static func compare(_ a: String, _ b: String) -> Int {
        var a = a
        var b = b
        return a.withUTF8 { a in b.withUTF8 { b in compare(a, b) } }
    }

    /// Whether `a`'s bytes sort before `b`'s.
    @inline(__always)
    package static func precedes(_ a: String, _ b: String) -> Bool { compare(a, b) < 0 }

    /// -1, 0 or 1 as the bytes of `a` sort before, equal or after those of `b`, compared eight at a time.
    package static func compare(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Int {
        let common = min(a.count, b.count)
        var offset = 0
        if common > 0 {
            let rawA = UnsafeRawPointer(a.baseAddress!)
            let rawB = UnsafeRawPointer(b.baseAddress!)
            while offset + 8 <= common {
                let wordA = UInt64(bigEndian: rawA.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
                let wordB = UInt64(bigEndian: rawB.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
                if wordA != wordB { return wordA < wordB ? -1 : 1 }
                offset += 8
            }
        }
        while offset < common {
            if a[offset] != b[offset] { return a[offset] < b[offset] ? -1 : 1 }
            offset += 1
        }
        return a.count == b.count ? 0 : (a.count < b.count ? -1 : 1)
    }

    /// The indices `0..<count` ordered by the bytes of `path(index)`, equal paths in index order.
    /// Paths that are already in order (a manifest written by `assetsync manifest`, a state index)
    /// cost one pass that finds so, and no sort.
    package static func sortedIndices(_ count: Int, path: (Int) -> String) -> [Int] {
        var indices = Array(0..<count)
        var index = 1
        while index < count, compare(path(index - 1), path(index)) <= 0 { index += 1 }
        if index >= count { return indices }
        indices.sort { a, b in
            let order = compare(path(a), path(b))
            return order < 0 || (order == 0 && a < b)
        }
        return indices
    }
}
