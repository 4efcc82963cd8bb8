/// What a pull did with one file of the manifest.
public struct FileReport: Sendable, Equatable {
    /// How a file ended.
    public enum Outcome: Sendable, Equatable {
        /// Downloaded (or copied from this machine), proven and committed.
        case committed
        /// Already there, proven by the state index or by reading it.
        case current
        /// Could not be had: why, in words that name the URL and what was expected and seen.
        case failed(reason: String)
        /// Stopped by cancellation; the partial download is kept for the next pull.
        case interrupted
    }

    /// The file's path under the destination, as the manifest names it.
    public var path: String
    /// Its size in bytes, as the manifest gives it.
    public var size: Int64
    /// How it ended.
    public var outcome: Outcome
    /// Body bytes received for it by this pull, over every attempt.
    public var bytesTransferred: Int64
    /// Where its bytes were copied from on this machine, when they were not downloaded.
    public var reusedFrom: String?
    /// Whether its bytes came from one of its mirrors rather than its primary URL.
    public var fromMirror: Bool
}
