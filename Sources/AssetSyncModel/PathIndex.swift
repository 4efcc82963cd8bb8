/// A manifest's paths, indexed as its entries arrive, for the rules that span
/// entries: no two entries share a path, and no entry's path is a directory
/// of another's ("a" and "a/b").
///
/// A path is hashed, and its directories recorded, while its bytes are still
/// in the cache from being read and checked; only the whole-path table waits
/// for the end, when every entry is known. Paths are compared in their canonical
/// form (`CanonicalPath`), so an NFC and an NFD spelling of one name clash.
package struct PathIndex {
    package enum Problem {
        /// Entry `index` has the path of the earlier entry `earlier`.
        case duplicate(Int, earlier: Int)
        /// Entry `index`'s path is a directory of entry `other`'s.
        case directoryOfAnother(Int, other: Int)
        /// Entry `index`'s directory `directory` is spelled in another Unicode normalization form in
        /// entry `other`'s path: one directory on macOS, two on Linux.
        case directorySpelledTwice(Int, other: Int, directory: Int)
    }

    /// Every directory prefix ("a/", "a/b/" of "a/b/c") of the paths so far.
    private var directories = PathTable(capacity: 1024)
    private var hashes: [UInt64] = []
    /// The canonical forms of the paths that are not ASCII (the others are their own).
    private var canonicalForms: [Int: String] = [:]
    private var previous = ""
    private var previousIsASCII = true
    private var spelledTwice: Problem?

    package init(capacity: Int = 0) {
        hashes.reserveCapacity(capacity)
    }

    /// Indexes the path of `entries[index]`, the entry just added. Neighbouring entries mostly
    /// share their directories, so a prefix that the previous path also has is already in the
    /// table and is not looked up again.
    package mutating func add(_ index: Int, of entries: UnsafeBufferPointer<ManifestEntry>) {
        var path = entries[index].path
        let canonical = CanonicalPath.nonASCIIForm(of: path)
        if let canonical {
            canonicalForms[index] = canonical
            path = canonical
        }
        let keys = PathTable.Keys(entries: entries, canonicalForms: canonicalForms)
        // Prefixes shared with the previous path are skipped only when both are ASCII: otherwise the
        // same canonical directory may be spelled differently, which the lookup must see.
        let compareSpelling = canonical != nil || !canonicalForms.isEmpty
        let skipsShared = canonical == nil && previousIsASCII
        let hash = path.withUTF8 { bytes in
            let shared = skipsShared ? previous.withUTF8 { Self.commonPrefixCount(bytes, $0) } : 0
            var hash = FNV1a.seed
            var slashes = 0
            for offset in 0..<bytes.count {
                let byte = bytes[offset]
                if byte == UInt8(ascii: "/") {
                    slashes += 1
                    if offset >= shared,
                       let other = directories.insert(prefixOf: index, count: offset, hash: hash, in: keys),
                       compareSpelling, spelledTwice == nil,
                       !Self.sameSpelling(entries[index].path, entries[other].path, directories: slashes) {
                        spelledTwice = .directorySpelledTwice(index, other: other, directory: slashes)
                    }
                }
                hash = FNV1a.mix(hash, byte)
            }
            return hash
        }
        hashes.append(hash)
        previous = path
        previousIsASCII = canonical == nil
    }

    /// Whether `a` and `b` spell their first `count` directories with the same bytes.
    private static func sameSpelling(_ a: String, _ b: String, directories count: Int) -> Bool {
        a.utf8.split(separator: UInt8(ascii: "/"), maxSplits: count, omittingEmptySubsequences: false).prefix(count)
            .elementsEqual(
                b.utf8.split(separator: UInt8(ascii: "/"), maxSplits: count, omittingEmptySubsequences: false).prefix(count),
                by: { $0.elementsEqual($1) })
    }

    /// The first `count` directories of `path` ("a/b/" of "a/b/c" for 2), as written.
    package static func directories(_ count: Int, of path: String) -> String {
        let parts = path.split(separator: "/", maxSplits: count, omittingEmptySubsequences: false)
        return parts.prefix(count).joined(separator: "/") + "/"
    }

    /// The first duplicate path in entry order, else the first path that is another's directory,
    /// else the first directory spelled in two normalization forms.
    /// The whole paths go into their table in a short loop over the hashes: one random memory
    /// access per entry, which the processor can overlap.
    func firstProblem(in entries: UnsafeBufferPointer<ManifestEntry>) -> Problem? {
        var files = PathTable(capacity: entries.count)
        let keys = PathTable.Keys(entries: entries, canonicalForms: canonicalForms)
        for index in entries.indices {
            let count = keys.key(index).utf8.count
            if let earlier = files.insert(prefixOf: index, count: count, hash: hashes[index], in: keys) {
                return .duplicate(index, earlier: earlier)
            }
        }
        for index in entries.indices {
            let count = keys.key(index).utf8.count
            if let other = directories.find(prefixOf: index, count: count, hash: hashes[index], in: keys) {
                return .directoryOfAnother(index, other: other)
            }
        }
        return spelledTwice
    }

    /// How many leading bytes `a` and `b` share.
    private static func commonPrefixCount(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Int {
        let limit = min(a.count, b.count)
        var count = 0
        while count < limit, a[count] == b[count] { count += 1 }
        return count
    }
}
