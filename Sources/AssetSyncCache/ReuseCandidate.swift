package import AssetSyncModel

/// A file that a source's state index says has the size and CRC-32 an entry needs: a lead to prove.
package struct ReuseCandidate: Sendable {
    package let source: ReuseSource
    /// The file's path in `source`.
    package let path: String
    /// What the source's index recorded when it proved the file.
    package let record: FileProof

    /// Where the bytes came from, for events: the entry path in DEST, or the other directory's path.
    package var displayPath: String { source.displayPath(of: path) }
}
