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

    /// The indices of `entries` in the order of their paths: what the merge-joins with the state
    /// index and with the cache walk in (computed once per run and handed to both).
    package static func sortedIndices(of entries: [ManifestEntry]) -> [Int] {
        entries.withUnsafeBufferPointer { entries in sortedIndices(entries.count) { entries[$0].path } }
    }

    /// The indices `0..<count` ordered by the bytes of `path(index)`, equal paths in index order.
    /// Paths already in order (a manifest written by `assetsync manifest`, a state index) cost one
    /// pass that finds so. Others are copied into one buffer first, so that the sort compares bytes
    /// in place (no retain and release of two strings per comparison); it takes runs already in
    /// order (a generated manifest's folders) as they come.
    package static func sortedIndices(_ count: Int, path: (Int) -> String) -> [Int] {
        var index = 1
        while index < count, compare(path(index - 1), path(index)) <= 0 { index += 1 }
        var indices = Array(0..<count)
        if index >= count { return indices }
        // Sized first (a count is free for a native string): grown by doubling, the buffer of a
        // million paths took twice their bytes at its peak.
        var total = 0
        for index in 0..<count { total += path(index).utf8.count }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(total)
        var starts: [Int] = [0]
        starts.reserveCapacity(count + 1)
        for index in 0..<count {
            bytes += path(index).utf8
            starts.append(bytes.count)
        }
        bytes.withUnsafeBufferPointer { bytes in
            starts.withUnsafeBufferPointer { starts in
                indices.sort { a, b in
                    let order = compare(
                        UnsafeBufferPointer(rebasing: bytes[starts[a]..<starts[a + 1]]),
                        UnsafeBufferPointer(rebasing: bytes[starts[b]..<starts[b + 1]]))
                    return order < 0 || (order == 0 && a < b)
                }
            }
        }
        return indices
    }
}
