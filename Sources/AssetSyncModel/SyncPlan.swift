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

    package var items: [Item]

    package init(items: [Item]) { self.items = items }

    /// Classifies every manifest entry, then lists the extras in path order. A file of the right
    /// size is `current` when `proofs[index]`, the state index's record of entry `index`, still
    /// describes it (same size, mtime and inode) with the manifest's CRC-32, and `check` otherwise;
    /// pass no `proofs` to check every such file (`--verify`).
    ///
    /// The cache is matched with the manifest in one merge-join in byte order (`order`, the
    /// entries' `PathOrder.sortedIndices`, when the caller has it), which also yields the extras,
    /// already in order.
    package init(manifest: Manifest, cache: CacheListing, proofs: [FileProof?]?, inOrder order: [Int]? = nil) {
        let (locals, extras) = cache.match(manifest.entries, inOrder: order)
        var items: [Item] = []
        items.reserveCapacity(manifest.entries.count + extras.count)
        manifest.entries.withUnsafeBufferPointer { entries in
            for index in entries.indices {  // field by field: copying whole entries showed in profiles
                let size = entries[index].size
                let local = locals[index]
                let action: Action
                switch local {
                case nil: action = .new
                case let item? where item.kind == .regular && item.size == size:
                    if let record = proofs?[index], record.proves(entries[index]), record.describes(item) {
                        action = .current
                    } else {
                        action = .check
                    }
                default: action = .changed
                }
                items.append(Item(action: action, path: entries[index].path, size: size, local: local))
            }
        }
        for extra in extras {
            items.append(Item(action: .extra, path: extra.path, size: extra.item.size, local: extra.item))
        }
        self.items = items
    }

    // Both read only the fields they need: copying whole items (a retain and release of each
    // path) made a pass over a million items cost as much as writing their lines.

    package func count(_ action: Action) -> Int {
        items.withUnsafeBufferPointer { items in
            var count = 0
            for index in items.indices where items[index].action == action { count += 1 }
            return count
        }
    }

    package func bytes(_ action: Action) -> Int64 {
        items.withUnsafeBufferPointer { items in
            var total: Int64 = 0
            for index in items.indices where items[index].action == action { total = total.addingSaturated(items[index].size) }
            return total
        }
    }

    /// Bytes a pull downloads for certain: every new and changed file.
    package var bytesToDownload: Int64 { bytes(.new).addingSaturated(bytes(.changed)) }
}
