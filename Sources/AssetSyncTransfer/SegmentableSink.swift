package import AssetSyncSystem

/// A sink that can take one file's bytes as several ranges written at once (a pull's partial
/// file): each range gets a sink of its own, a view that writes at its offsets with a CRC of
/// its own, and the views' CRCs join into the file's so that the proof needs no second read.
package protocol SegmentableSink: DownloadSink {
    /// Reserves room for the whole file before segments write at scattered offsets; only a hint.
    func preallocate()
    /// A sink for the bytes of `range` that already holds the first `done` of them (re-read to
    /// rebuild its CRC; from the range's start when they cannot be read). Its `offset` counts
    /// from the start of the file; its `append` may run on another thread than other segments'.
    func segment(_ range: Range<Int64>, done: Int64) throws(SystemError) -> any DownloadSink
    /// Takes the segments' bytes as the file's: its size and CRC joined from theirs, in file
    /// order, ready for `mismatch()`. Called once every segment's own `mismatch()` is nil.
    func joinSegments()
}
