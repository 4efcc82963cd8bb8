/// What reading one file of a manifest found: its bytes proven, or why not.
package enum ContentVerdict: Sendable {
    /// Its bytes match the entry's size, CRC-32 and SHA-256.
    case proven
    case missing
    /// Something other than a regular file is at its path.
    case notARegularFile
    case wrongSize(Int64)
    case wrongCRC(UInt32)
    case wrongSHA256(SHA256Digest)
    /// It could not be read: why.
    case unreadable(any ExplainedError)
}
