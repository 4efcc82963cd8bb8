/// How the objects of a bucket's prefix were described as a manifest's entries.
package struct BucketTally: Sendable, Equatable {
    /// By the CRC-32 the store keeps of the whole object, which was not downloaded.
    package var storedCRC32 = 0
    /// Streamed once and hashed: the store keeps no CRC-32 of the whole object (or a SHA-256 was asked for).
    package var hashed = 0
    /// Of `hashed`, multipart uploads whose stored checksum is one of their parts' checksums, not the file's.
    package var multipart = 0
    /// Of `hashed`, objects whose attributes the store did not give (no GetObjectAttributes, or a
    /// key without its permission), and why the first was not.
    package var unanswered = 0
    package var unansweredReason: String?
    /// Folder markers (an empty object whose key ends in "/"), left out.
    package var folders = 0

    package init() {}
}
