package import AssetSyncSystem

/// One segment of a partial file fetched in segments: it writes at its own offsets of the
/// partial's descriptor (`pwrite`, so segments on other threads never meet) and keeps a CRC-32
/// of its own bytes, which the partial joins with the others' once all are in.
package final class PartialSegment {
    package unowned let file: PartialFile
    /// The bytes of the file this segment holds when complete.
    package let range: Range<Int64>
    /// Bytes written so far, counted from the file's start; the next byte goes here.
    package private(set) var offset: Int64
    package private(set) var crc = CRC32()
    private var writebackStart: Int64

    /// A segment of `file` over `range` that holds its first `done` bytes already: they are re-read
    /// to rebuild its CRC, and when they cannot be (the file is shorter) it starts from its range's start.
    init(file: PartialFile, range: Range<Int64>, done: Int64, buffer: UnsafeMutableRawBufferPointer) throws(SystemError) {
        self.file = file
        self.range = range
        offset = range.lowerBound
        if done > 0, let crc = try file.crc(from: range.lowerBound, length: done, buffer: buffer) {
            self.crc = CRC32(resumingFrom: crc)
            offset += done
        }
        writebackStart = offset
    }

    /// Writes `bytes` at `offset` and folds them into this segment's CRC.
    package func append(_ bytes: UnsafeRawBufferPointer) throws(SystemError) {
        try file.write(bytes, at: offset)
        crc.update(bytes)
        offset += Int64(bytes.count)
        if offset - writebackStart >= PartialFile.writebackInterval {
            FileDescriptor(file.fd).startWriteback(from: writebackStart, length: offset - writebackStart)
            writebackStart = offset
        }
    }

    /// Drops this segment's bytes (they are overwritten): the next response starts at its range's start.
    package func restart() {
        offset = range.lowerBound
        writebackStart = offset
        crc = CRC32()
    }

    /// What this segment lacks; nil when it holds its whole range.
    package var shortfall: String? {
        offset == range.upperBound ? nil
            : "received \(offset - range.lowerBound) of the \(range.count) bytes from offset \(range.lowerBound)"
    }
}
