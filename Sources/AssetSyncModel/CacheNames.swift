/// The names assetsync gives its own files and directories in a cache and beside it, each defined
/// once: in Model, because the manifest's rules keep `.assetsync/` out of every entry's path.
package enum CacheNames {
    /// `DEST/.assetsync/`: assetsync's own directory in a cache, which no manifest path may enter.
    package static let metadata = metadataBytes.description
    /// The same name as bytes, for the check of every manifest path against it (`ManifestRules`).
    package static let metadataBytes: StaticString = ".assetsync"
    /// `.assetsync/partial/`: in-flight downloads, their resume records, and every temporary.
    package static let partial = "partial"
    /// `.assetsync/lock`, held with `flock` for a whole run.
    package static let lock = "lock"
    /// `.assetsync/state`: the index of verified files.
    package static let state = "state"

    /// The store of generations beside DEST (`pull --atomic`) is named DEST's name and this: `DEST.assetsync/`.
    package static let storeSuffix = ".assetsync"
    /// The store's `.assetsync/generations`: its mode record.
    package static let modeRecord = "generations"
    /// The generation being built.
    package static let build = "next"
    /// A generation beyond `--keep` being made the next one; an interrupted run's is finished by the next.
    package static let recycle = "recycle"
    /// The files a recycled generation lost in becoming `next/`, kept with its state index so that
    /// a pull going back to them finds them.
    package static let spare = "spare"
    /// What a generation's name starts with: `gen-000007`.
    package static let generationPrefix = "gen-"
    /// The temporary name of the symlink that will replace DEST, in the store; after the first
    /// publish of a plain DEST it names DEST's old tree, until that is renamed `retired`.
    package static let link = "link.tmp"
    /// A plain DEST's old tree after its first generation is published.
    package static let retired = "retired"
    /// Where a tree is renamed before it is removed, so that a removal cut short leaves no half
    /// generation or half build under a name that means something.
    package static let trash = "trash"
}
