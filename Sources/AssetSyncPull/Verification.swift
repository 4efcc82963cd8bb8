public import AssetSyncCache
public import AssetSyncModel
public import AssetSyncSystem

/// `assetsync verify`: read every file of the manifest and prove it by its CRC-32,
/// ignoring the state index, then record what was proven and forget what was not.
public enum Verification {
    public static func run(manifest: Manifest, root: CacheRoot) throws(SystemError) -> [ContentCheck.Verdict] {
        let verdicts = ContentCheck.verdicts(of: manifest.entries, in: root)
        let previous = StateIndex.load(from: root)
        let next = StateIndex(zip(manifest.entries, verdicts).compactMap { entry, verdict in
            verdict.proof.map { StateIndex.Entry(path: entry.path, record: $0) }
        })
        if next != previous { try next.save(to: root) }
        return verdicts
    }
}
