/// What a scan of the cache found, by path, in `PathOrder`, without merging two files into one.
///
/// On Linux one directory can hold an NFC and an NFD spelling of a name as two files. Every
/// lookup is byte-exact: a file is an entry's only when its name has the entry path's bytes,
/// which are the bytes assetsync opens and renames to. Of the paths that are canonically
/// equivalent, the first in byte order is in `items`; the others ("twins") are kept aside, for
/// `assetsync manifest`, which cannot list both.
package struct CacheListing: Sendable {
    /// One item and its path relative to the cache root.
    package struct Entry: Equatable, Sendable {
        package var path: String
        package var item: LocalItem

        package init(path: String, item: LocalItem) {
            self.path = path
            self.item = item
        }
    }

    /// The items in `PathOrder`, but for the twins.
    package private(set) var items: [Entry]
    /// Items whose path is canonically equivalent to that of an item before them, in `PathOrder`.
    package private(set) var twins: [Entry]

    /// An empty listing.
    package init() {
        items = []
        twins = []
    }

    /// The listing of `entries`, which are in `PathOrder`, one per path.
    package init(sorted entries: [Entry]) {
        var classes: [String: [Int]] = [:]  // canonical form → the entries that have it, of the few paths not ASCII
        for index in entries.indices {
            if let canonical = CanonicalPath.nonASCIIForm(of: entries[index].path) { classes[canonical, default: []].append(index) }
        }
        var twinIndices: [Int] = []
        for (canonical, var members) in classes {
            // An ASCII path is its own canonical form ("K" of KELVIN SIGN).
            if CanonicalPath.nonASCIIForm(of: canonical) == nil, let ascii = Self.find(canonical, in: entries) { members.append(ascii) }
            twinIndices += members.sorted().dropFirst()
        }
        if twinIndices.isEmpty {
            items = entries
            twins = []
            return
        }
        let isTwin = Set(twinIndices)
        items = entries.indices.filter { !isTwin.contains($0) }.map { entries[$0] }
        twins = twinIndices.sorted().map { entries[$0] }
    }

    package var isEmpty: Bool { items.isEmpty }

    /// The item at exactly `path`, byte for byte.
    package func item(at path: String) -> LocalItem? {
        if let index = Self.find(path, in: items) { return items[index].item }
        return Self.find(path, in: twins).map { twins[$0].item }
    }

    /// The item at each of `entries`' paths (nil where there is none), and every file no entry has,
    /// in `PathOrder`: one merge-join of the listing with the entries in byte order (`order`, when the
    /// caller has it already).
    package func match(_ entries: [ManifestEntry], inOrder order: [Int]? = nil) -> (items: EntryColumn<LocalItem>, unmatched: [Entry]) {
        var found = EntryColumn<LocalItem>(count: entries.count)
        var unmatched: [Entry] = []
        if isEmpty { return (found, unmatched) }
        let order = order ?? PathOrder.sortedIndices(of: entries)
        items.withUnsafeBufferPointer { items in
            var next = 0
            for index in order {
                while next < items.count {
                    let comparison = PathOrder.compare(items[next].path, entries[index].path)
                    if comparison > 0 { break }
                    if comparison == 0 { found[index] = items[next].item }
                    else if items[next].item.kind != .directory { unmatched.append(items[next]) }
                    next += 1
                    if comparison == 0 { break }
                }
            }
            for item in items[next...] where item.item.kind != .directory { unmatched.append(item) }
        }
        if twins.isEmpty { return (found, unmatched) }
        for twin in twins {
            var (low, high) = (0, order.count)  // the first entry in order whose path does not sort before the twin's
            while low < high {
                let middle = (low + high) / 2
                if PathOrder.precedes(entries[order[middle]].path, twin.path) { low = middle + 1 } else { high = middle }
            }
            if low < order.count, PathOrder.compare(entries[order[low]].path, twin.path) == 0 {
                found[order[low]] = twin.item
            } else if twin.item.kind != .directory {
                unmatched.append(twin)
            }
        }
        unmatched.sort { PathOrder.precedes($0.path, $1.path) }
        return (found, unmatched)
    }

    /// The index of the entry of `entries` (in `PathOrder`) whose path has the bytes of `path`.
    private static func find(_ path: String, in entries: [Entry]) -> Int? {
        var (low, high) = (0, entries.count)
        while low < high {
            let middle = (low + high) / 2
            let comparison = PathOrder.compare(entries[middle].path, path)
            if comparison == 0 { return middle }
            if comparison < 0 { low = middle + 1 } else { high = middle }
        }
        return nil
    }
}
