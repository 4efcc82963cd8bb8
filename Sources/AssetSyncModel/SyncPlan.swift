/// What a pull would do to each file, decided from the manifest, a scan of the
/// cache (sizes and kinds, never contents) and the state index. `plan` and `pull`
/// both classify through it, so a plan says exactly what the pull will do.
package struct SyncPlan: Equatable, Sendable {
    package enum Action: String, Sendable, CaseIterable {
        /// Missing from the cache.
        case new
        /// Present with a different size, or something other than a file is in its place.
        case changed
        /// Present with the same size: pull proves it with its CRC-32.
        case check
        /// Present, and the state index proves it unchanged since it was proven: pull reads nothing.
        case current
        /// In the cache but not in the manifest.
        case extra
    }

    package struct Item: Equatable, Sendable {
        package var action: Action
        package var path: String
        /// The manifest's size; for an extra file, its size on disk.
        package var size: Int64
        /// What is in the cache at this path now, when something is.
        package var local: LocalItem?
    }

    /// Every entry's item in manifest order, then the extras in path order.
    package let items: Items

    /// A plan of exactly `items`, in that order (for reports built by hand).
    package init(items: [Item]) { self.items = Items(entries: [], actions: [], locals: EntryColumn(count: 0), tail: items) }

    /// Classifies every manifest entry, then lists the extras in path order. A file of the right
    /// size is `current` when `proofs[index]`, the state index's record of entry `index`, still
    /// describes it (same size, mtime and inode) with the manifest's CRC-32, and `check` otherwise;
    /// pass no `proofs` to check every such file (`--verify`).
    ///
    /// The cache is matched with the manifest in one merge-join in byte order (`order`, the
    /// entries' `PathOrder.sortedIndices`, when the caller has it), which also yields the extras,
    /// already in order.
    package init(manifest: Manifest, cache: CacheListing, proofs: EntryColumn<FileProof>?, inOrder order: [Int]? = nil) {
        let (locals, extras) = cache.match(manifest.entries, inOrder: order)
        var actions: [Action] = []
        actions.reserveCapacity(manifest.entries.count)
        manifest.entries.withUnsafeBufferPointer { entries in
            for index in entries.indices {  // field by field: copying whole entries showed in profiles
                let action: Action
                switch locals[index] {
                case nil: action = .new
                case let item? where item.kind == .regular && item.size == entries[index].size:
                    if let record = proofs?[index], record.proves(entries[index]), record.describes(item) {
                        action = .current
                    } else {
                        action = .check
                    }
                default: action = .changed
                }
                actions.append(action)
            }
        }
        let tail = extras.map { Item(action: .extra, path: $0.path, size: $0.item.size, local: $0.item) }
        items = Items(entries: manifest.entries, actions: actions, locals: locals, tail: tail)
    }

    /// The plan's items, made as they are read from the manifest's entries, an action a byte each and
    /// the cache's items (none for an empty DEST): a million items take about 1 MB beside the
    /// manifest, where an array of `Item`s took 64 MB.
    package struct Items: RandomAccessCollection, Equatable, Sendable {
        private let entries: [ManifestEntry]
        private let actions: [Action]
        private let locals: EntryColumn<LocalItem>
        /// The items after the entries' (the extras).
        private let tail: [Item]

        fileprivate init(entries: [ManifestEntry], actions: [Action], locals: EntryColumn<LocalItem>, tail: [Item]) {
            (self.entries, self.actions, self.locals, self.tail) = (entries, actions, locals, tail)
        }

        package var startIndex: Int { 0 }
        package var endIndex: Int { actions.count + tail.count }

        package subscript(index: Int) -> Item {
            index < actions.count
                ? Item(action: actions[index], path: entries[index].path, size: entries[index].size, local: locals[index])
                : tail[index - actions.count]
        }

        // The fields one at a time, for the loops over a million items that need one or two of them.

        package func action(at index: Int) -> Action { index < actions.count ? actions[index] : tail[index - actions.count].action }

        package func size(at index: Int) -> Int64 { index < actions.count ? entries[index].size : tail[index - actions.count].size }

        package func local(at index: Int) -> LocalItem? { index < actions.count ? locals[index] : tail[index - actions.count].local }

        package func path(at index: Int) -> String { index < actions.count ? entries[index].path : tail[index - actions.count].path }

        package static func == (lhs: Items, rhs: Items) -> Bool { lhs.elementsEqual(rhs) }
    }

    package func count(_ action: Action) -> Int {
        var count = 0
        for index in items.indices where items.action(at: index) == action { count += 1 }
        return count
    }

    package func bytes(_ action: Action) -> Int64 {
        var total: Int64 = 0
        for index in items.indices where items.action(at: index) == action { total = total.addingSaturated(items.size(at: index)) }
        return total
    }

    /// Bytes a pull downloads for certain: every new and changed file.
    package var bytesToDownload: Int64 { bytes(.new).addingSaturated(bytes(.changed)) }
}
