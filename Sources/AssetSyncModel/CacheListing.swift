/// What a scan of the cache found, by path, without merging two files into one.
///
/// `String` keys compare by canonical equivalence, but on Linux one directory can hold
/// an NFC and an NFD spelling of a name as two files. The first name found is a key of
/// `items`; the others ("twins") are kept aside, and every lookup is byte-exact: a file
/// is an entry's only when its name has the entry path's bytes, which are the bytes
/// assetsync opens and renames to.
public struct CacheListing: Sendable {
    public var items: [String: LocalItem]
    /// Items whose path is canonically equivalent to a key of `items` but spelled with other bytes.
    public var twins: [(path: String, item: LocalItem)]

    public init(items: [String: LocalItem] = [:], twins: [(path: String, item: LocalItem)] = []) {
        self.items = items
        self.twins = twins
    }

    public var isEmpty: Bool { items.isEmpty }

    /// How many items are not directories.
    var fileCount: Int {
        items.values.lazy.filter { $0.kind != .directory }.count + twins.lazy.filter { $0.item.kind != .directory }.count
    }

    /// The item at exactly `path`, byte for byte.
    public func item(at path: String) -> LocalItem? {
        guard let index = items.index(forKey: path) else { return nil }
        let (key, item) = items[index]
        if Self.sameBytes(key, path) { return item }
        return twins.first { Self.sameBytes($0.path, path) }?.item
    }

    /// Every file whose path is none of `paths` (compared byte for byte).
    package func files(notIn paths: [String]) -> [(path: String, item: LocalItem)] {
        var remaining = items
        var twinsLeft = twins
        for path in paths {
            if let index = remaining.index(forKey: path), Self.sameBytes(remaining[index].key, path) {
                remaining.remove(at: index)
            } else if let twin = twinsLeft.firstIndex(where: { Self.sameBytes($0.path, path) }) {
                twinsLeft.remove(at: twin)
            }
        }
        return (remaining.map { ($0.key, $0.value) } + twinsLeft).filter { $0.item.kind != .directory }
    }

    /// Whether `a` and `b` are the same bytes (`==` says only that they are canonically equivalent).
    @inline(__always)
    static func sameBytes(_ a: String, _ b: String) -> Bool {
        var a = a
        var b = b
        return a.withUTF8 { a in b.withUTF8 { b in a.count == b.count && (a.isEmpty || RawBytes.equal(a.baseAddress!, b.baseAddress!, count: a.count)) } }
    }
}
