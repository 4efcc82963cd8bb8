package import AssetSyncModel
package import AssetSyncSystem
import Glibc

/// A delta's partial: the old version of a file, cut with the sizes of the new version's
/// chunk list, holds some of its chunks (same SHA-256, first 128 bits); each is copied into the
/// partial at its new place (`copy_file_range`, which shares blocks where the file system can,
/// else read and write), and the stretches between them are left for `Range` requests. Nothing
/// here is proof: the assembled file is proven by its CRC-32 like any download.
package enum DeltaAssembly {
    /// One stretch of the new file: copied from the old version, or still to fetch.
    package struct Run: Equatable, Sendable {
        package var range: Range<Int64>
        package var copied: Bool

        package init(range: Range<Int64>, copied: Bool) {
            self.range = range
            self.copied = copied
        }
    }

    /// The most runs a file is split into: each one to fetch is a request, and each run is a line of
    /// the resume record (which must stay under `PartialFile.resumeSizeLimit`).
    package static let maximumRuns = 1024

    /// The old version of `path` in DEST, opened for reading without following a link (the caller
    /// closes it); nil when there is no regular file there.
    package static func openOldVersion(of path: String, in root: CacheRoot) -> Int32? {
        ReuseSource(destination: root, index: StateIndex(), recordsVouch: false).openFile(path)
    }

    /// How many bytes an old version may exceed twice the new size by and still be cut: below that, cutting
    /// it costs a fraction of a second whatever the sizes.
    static let oversizeSlack: Int64 = 64 << 20

    /// Whether the old version `old` is worth cutting for an entry of `size` bytes, decided from its
    /// size and its holes before any byte is read (docs/delta.md). Cutting reads and hashes every byte
    /// of the old file (about 0.5 GB/s on one core), holes included, which pays only when it can hold
    /// much of the new one. It does not when the file is larger than twice `size` plus `oversizeSlack`
    /// (at most half of it could be chunks of the new file, and a huge one, such as a sparse file of a
    /// terabyte, would take an hour), nor when it is mostly holes: less than half its size allocated
    /// (`st_blocks`) and, checked then by `SEEK_DATA`/`SEEK_HOLE` (a file system that compresses counts
    /// fewer blocks than the data holds), less than half of it data. Such an entry is downloaded whole.
    package static func isWorthCutting(_ old: FileDescriptor, forSize size: Int64) throws(SystemError) -> Bool {
        let status = try old.status()
        let length = Int64(status.st_size)
        guard length <= size.addingSaturated(size).addingSaturated(oversizeSlack) else { return false }
        // `st_blocks` counts 512-byte units: allocated below half the size is fewer than size / 1024 of them.
        guard Int64(status.st_blocks) < length / 1024 else { return true }
        return holdsData(old, length: length, atLeast: length - length / 2)
    }

    /// Whether `file`, of `length` bytes, holds at least `wanted` bytes of data (not holes) by `SEEK_DATA`
    /// and `SEEK_HOLE`. After `mostExtents` stretches of data without an answer, or where the file system
    /// cannot tell, it is taken to (the stop source still bounds the cutting).
    private static func holdsData(_ file: FileDescriptor, length: Int64, atLeast wanted: Int64) -> Bool {
        var (data, offset): (Int64, Int64) = (0, 0)
        for _ in 0..<mostExtents {
            let start = file.seekNext(hole: false, from: offset)
            if start < 0 { return errno != ENXIO }  // ENXIO: no data from `offset` on
            let end = file.seekNext(hole: true, from: start)
            guard end > start else { return true }
            data += end - start
            offset = end
            if data >= wanted { return true }
            if offset - data > length - wanted { return false }
        }
        return true
    }

    /// The most stretches of data `holdsData` walks.
    private static let mostExtents = 4096

    /// Copies into the empty `partial` every chunk of `chunks` that `old` holds, sets the partial's
    /// length to the entry's size, and returns the file's runs in order; nil when the old version
    /// shares no chunk, or when `shouldStop` said so first (between reads and copies of at most a few
    /// MiB): the partial is then left empty.
    package static func fill(
        _ partial: PartialFile, from old: FileDescriptor, chunks: ChunkList, buffer: UnsafeMutableRawBufferPointer,
        shouldStop: () -> Bool = { false }
    ) throws(SystemError) -> [Run]? {
        guard let found = try index(old, parameters: chunks.parameters, buffer: buffer, shouldStop: shouldStop) else { return nil }
        let sources = chunks.digests.map { found[$0] }
        guard sources.contains(where: { $0 != nil }) else { return nil }
        var runs: [Run] = []
        for (range, source) in zip(chunks.ranges, sources) { append(Run(range: range, copied: source != nil), to: &runs) }
        runs = bounded(runs, average: Int64(chunks.parameters.average))
        let target = FileDescriptor(partial.fd, path: partial.displayPath)
        // Chunks in a copied run were found at various places of the old file: one copy per stretch
        // that is contiguous in both.
        var pending: (from: Int64, to: Int64, length: Int64)?
        var run = 0
        for (range, source) in zip(chunks.ranges, sources) {
            while runs[run].range.upperBound <= range.lowerBound { run += 1 }
            guard let source, runs[run].copied else { continue }
            if let last = pending, last.from + last.length == source, last.to + last.length == range.lowerBound {
                pending = (last.from, last.to, last.length + Int64(range.count))
                continue
            }
            if let last = pending {
                guard try copy(from: old, at: last.from, to: target, at: last.to, length: last.length, buffer: buffer, shouldStop: shouldStop)
                else { return try stopped(partial) }
            }
            pending = (source, range.lowerBound, Int64(range.count))
        }
        if let last = pending {
            guard try copy(from: old, at: last.from, to: target, at: last.to, length: last.length, buffer: buffer, shouldStop: shouldStop)
            else { return try stopped(partial) }
        }
        try FileDescriptor(partial.fd, path: partial.displayPath).truncate(to: partial.entry.size)
        return runs
    }

    /// Empties `partial`, whose copies a stop cut short: the next run prepares it again.
    private static func stopped(_ partial: PartialFile) throws(SystemError) -> [Run]? {
        try partial.restart()
        return nil
    }

    /// Where each chunk of `file`, cut with `parameters`, starts (the first place, for a chunk found
    /// twice); nil when `shouldStop`, asked before each read of `buffer`'s size, said so.
    private static func index(
        _ file: FileDescriptor, parameters: ChunkParameters, buffer: UnsafeMutableRawBufferPointer, shouldStop: () -> Bool
    ) throws(SystemError) -> [ChunkDigest: Int64]? {
        var chunker = ContentChunker(parameters: parameters)
        var found: [ChunkDigest: Int64] = [:]
        var chunkStart: Int64 = 0
        var offset: Int64 = 0
        while true {
            if shouldStop() { return nil }
            let got = try file.read(into: buffer, at: offset)
            guard got > 0 else { break }
            offset += Int64(got)
            chunker.feed(UnsafeRawBufferPointer(rebasing: buffer[0..<got])) { length, digest in
                if found[digest] == nil { found[digest] = chunkStart }
                chunkStart += Int64(length)
            }
        }
        if let last = chunker.finish(), found[last.digest] == nil { found[last.digest] = chunkStart }
        return found
    }

    /// Adds `run` to `runs`, joined with the last one when both are copied or both fetched.
    private static func append(_ run: Run, to runs: inout [Run]) {
        if let last = runs.last, last.copied == run.copied, last.range.upperBound == run.range.lowerBound {
            runs[runs.count - 1].range = last.range.lowerBound..<run.range.upperBound
        } else {
            runs.append(run)
        }
    }

    /// `runs` in at most `maximumRuns`: copied runs shorter than a length that doubles from
    /// `average` are fetched instead, so that the shortest gaps between requests close first.
    private static func bounded(_ runs: [Run], average: Int64) -> [Run] {
        var runs = runs
        var shortest = average
        while runs.count > maximumRuns {
            var merged: [Run] = []
            for run in runs {
                append(run.copied && Int64(run.range.count) < shortest ? Run(range: run.range, copied: false) : run, to: &merged)
            }
            runs = merged
            shortest *= 2
        }
        return runs
    }

    /// The most bytes one `copy_file_range` of `copy` is asked for, between two looks at the stop source.
    static let copyPiece: Int64 = 16 << 20

    /// Copies `length` bytes inside the kernel as far as it goes, `copyPiece` at a time, then through
    /// `buffer`; false, with the copy unfinished, when `shouldStop` said so between two pieces.
    private static func copy(
        from old: FileDescriptor, at source: Int64, to target: FileDescriptor, at offset: Int64, length: Int64,
        buffer: UnsafeMutableRawBufferPointer, shouldStop: () -> Bool
    ) throws(SystemError) -> Bool {
        var done: Int64 = 0
        while done < length {
            if shouldStop() { return false }
            let piece = min(copyPiece, length - done)
            let copied = target.copyRange(from: old, length: piece, sourceOffset: source + done, offset: offset + done)
            done += copied
            if copied < piece { break }
        }
        while done < length {
            if shouldStop() { return false }
            let wanted = Int(min(Int64(buffer.count), length - done))
            let got = try old.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<wanted]), at: source + done)
            guard got > 0 else { throw SystemError("read", path: old.path, code: EIO) }
            try target.writeAll(UnsafeRawBufferPointer(rebasing: buffer[0..<got]), at: offset + done)
            done += Int64(got)
        }
        return true
    }

    /// The first chunk of `partial` whose SHA-256 (first 128 bits) is not the one `chunks` lists, as
    /// a reason; nil when every chunk has its hash. A delta's proof beside the CRC-32: the list said
    /// which old chunks to copy and which ranges to fetch, and a list that lies is caught here even
    /// where the CRC-32 happens to agree.
    package static func chunkMismatch(in partial: PartialFile, chunks: ChunkList, buffer: UnsafeMutableRawBufferPointer) -> String? {
        let hasher = SHA256()
        let file = FileDescriptor(partial.fd, path: partial.displayPath)
        for (index, range) in chunks.ranges.enumerated() {
            var offset = range.lowerBound
            while offset < range.upperBound {
                let wanted = Int(min(Int64(buffer.count), range.upperBound - offset))
                guard let got = try? file.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<wanted]), at: offset), got > 0 else {
                    return "the assembled file could not be read back at offset \(offset)"
                }
                hasher.update(UnsafeRawBufferPointer(rebasing: buffer[0..<got]))
                offset += Int64(got)
            }
            if ChunkDigest(hasher.finish()) != chunks.digests[index] {
                return "chunk \(index) (bytes \(range.lowerBound)-\(range.upperBound - 1)) does not have the SHA-256 the chunk list gives"
            }
        }
        return nil
    }
}
