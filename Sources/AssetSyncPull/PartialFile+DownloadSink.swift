import AssetSyncCache
import AssetSyncModel
package import AssetSyncSystem
package import AssetSyncTransfer

/// A partial file is where a pull's downloads write: the transfer layer streams into it
/// and keeps its resume fields there, and a size or CRC-32 mismatch is found before commit.
/// A large file is written as segments, each a sink of its own (`PartialSegment`).
extension PartialFile: SegmentableSink {
    package func mismatch() -> String? {
        do {
            try Committer.verify(self)
            // A delta's bytes are also held to the chunk list they were assembled by.
            guard let chunks = entry.chunks, resumeFields.flatMap(ResumeRecord.init(fields:))?.isDelta == true else { return nil }
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 4096)
            defer { buffer.deallocate() }
            return DeltaAssembly.chunkMismatch(in: self, chunks: chunks, buffer: buffer)
        } catch {
            switch error {
            case .mismatch(let reason): return reason
            case .local(let error): return error.description
            }
        }
    }

    package func segment(_ range: Range<Int64>, done: Int64) throws(SystemError) -> any DownloadSink {
        guard done > 0 else { return try segment(range, done: 0, buffer: UnsafeMutableRawBufferPointer(start: nil, count: 0)) }
        // Page-aligned, as for a whole partial's re-read.
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 4096)
        defer { buffer.deallocate() }
        return try segment(range, done: done, buffer: buffer)
    }
}
