package import AssetSyncCache
package import AssetSyncModel

/// What a pull would copy from files already on the machine rather than download, as far as the
/// state indexes say: for each entry the plan downloads, the first file recorded with its size and
/// CRC-32 (and SHA-256, when both give one). A lead, not a promise: the pull proves every copy
/// before it commits it, and downloads what fails.
package struct PlannedReuse {
    /// The file each item may be copied from (by the item's place in the plan), as events name it.
    private let sources: [Int: String]
    /// The bytes of those items.
    package let bytes: Int64

    package static let none = PlannedReuse(sources: [:], bytes: 0)

    private init(sources: [Int: String], bytes: Int64) {
        self.sources = sources
        self.bytes = bytes
    }

    /// Looks up the `new` and `changed` items of `plan` (made from `manifest`) in `sources`.
    package init(plan: SyncPlan, manifest: Manifest, sources: [ReuseSource]) {
        let fetched = manifest.entries.indices.filter { plan.items[$0].action == .new || plan.items[$0].action == .changed }
        guard !fetched.isEmpty, !sources.isEmpty else {
            self = .none
            return
        }
        let finder = ReuseFinder(sources: sources, for: fetched.map { manifest.entries[$0] })
        var found: [Int: String] = [:]
        var bytes: Int64 = 0
        if !finder.isEmpty {
            for index in fetched {
                guard let first = finder.candidates(for: manifest.entries[index]).first else { continue }
                found[index] = first.displayPath
                bytes = bytes.addingSaturated(manifest.entries[index].size)
            }
        }
        self.init(sources: found, bytes: bytes)
    }

    /// The file the item at `index` of the plan may be copied from, if any.
    package func source(ofItem index: Int) -> String? { sources.isEmpty ? nil : sources[index] }
}
