public import AssetSyncModel

/// A file that a source's state index says has the size and CRC-32 an entry needs: a lead to prove.
public struct ReuseCandidate: Sendable {
    public let source: ReuseSource
    /// The file's path in `source`.
    public let path: String
    /// What the source's index recorded when it proved the file.
    public let record: FileProof

    /// Where the bytes came from, for events: the entry path in DEST, or the other directory's path.
    public var displayPath: String { source.displayPath(of: path) }
}
