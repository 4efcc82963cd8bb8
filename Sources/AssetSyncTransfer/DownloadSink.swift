package import AssetSyncSystem

/// Where a download's bytes go. The transfer layer streams a response into it and keeps
/// its resume record there, without knowing where or how the bytes are kept (in a pull,
/// a partial file in the cache).
package protocol DownloadSink: AnyObject {
    /// Bytes held so far; the next byte goes at this offset.
    var offset: Int64 { get }
    /// The fields of the resume record found with the bytes; nil when they started from zero.
    var resumeFields: [String: String]? { get }
    /// Appends `bytes` at `offset`.
    func append(_ bytes: UnsafeRawBufferPointer) throws(SystemError)
    /// Waits until every byte appended is written; throws the first error met in writing them.
    func flush() throws(SystemError)
    /// Starts writing every byte held back, without waiting: whether every byte appended is then
    /// written, so that `flush` would not wait.
    func beginFlush() -> Bool
    /// Waits for the writes under way, leaving bytes held back to keep writes aligned where they are;
    /// `writtenOffset` then says how far the bytes on disk go. Throws as `flush` does.
    func settle() throws(SystemError)
    /// How far the bytes go that are written or being written: `offset` less any held back.
    var writtenOffset: Int64 { get }
    /// Drops every byte and the resume record: the next response starts from zero.
    func restart() throws(SystemError)
    /// Removes the bytes and the record for good.
    func discard()
    /// Keeps `fields` as the resume record, for the next attempt or run; a document's are the
    /// answer's validators, for its copy's next conditional request.
    func saveResume(_ fields: [(key: String, value: String?)]) throws(SystemError)
    /// Whether the bytes are exactly the file wanted (size and checksum): nil when they are, else what differs.
    func mismatch() -> String?
    /// The download waits for a retry: gives back what the sink may hold only while it runs (a
    /// pooled buffer), keeping its bytes.
    func setAside()
}

extension DownloadSink {
    /// A sink that writes as `append` is called has nothing to wait for.
    package func flush() throws(SystemError) {}
    package func beginFlush() -> Bool { true }
    package func settle() throws(SystemError) {}
    package var writtenOffset: Int64 { offset }
    package func setAside() {}
}
