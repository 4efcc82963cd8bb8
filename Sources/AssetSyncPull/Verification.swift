package import AssetSyncCache
package import AssetSyncModel
package import AssetSyncSystem

/// `assetsync verify`: read every file of the manifest and prove it by its CRC-32,
/// ignoring the state index, then record what was proven and forget what was not.
/// A stop ends the reading at once and leaves the index as it was (nil).
package enum Verification {
    package static func run(
        manifest: Manifest, root: CacheRoot, until shouldStop: @escaping @Sendable () -> Bool = { false }
    ) throws(SystemError) -> [ContentCheck.Verdict]? {
        guard let verdicts = ContentCheck.verdicts(of: manifest.entries, in: root, until: shouldStop) else { return nil }
        let previous = StateIndex.load(from: root)
        let next = StateIndex(zip(manifest.entries, verdicts).compactMap { entry, verdict in
            verdict.proof.map { StateIndex.Entry(path: entry.path, record: $0) }
        })
        if next != previous { try next.save(to: root) }
        return verdicts
    }
}
