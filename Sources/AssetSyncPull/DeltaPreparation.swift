import AssetSyncCache
import AssetSyncModel
import AssetSyncSystem
import AssetSyncTransfer
import Glibc

/// The step before the transfers that makes deltas: each entry to fetch that has a chunk
/// list and an old version at its path gets a partial holding the chunks the old version shares
/// (`DeltaAssembly`), and a resume record whose segments are those copied stretches, done, and the
/// stretches to fetch. The transfers then continue it as they continue any file in segments: the
/// first range fetched names the version the others ask for with `If-Range`, the assembled bytes are
/// proven by their CRC-32, and a server that ignores `Range` or answers with another version makes
/// the file a full download.
struct DeltaPreparation {
    let root: CacheRoot
    let stop: StopSource

    /// Prepares the partials of `requests`, named as the transfers will name them.
    func run(_ requests: [TransferEngine.Request]) {
        let candidates = requests.filter { $0.entry.chunks != nil }
        guard !candidates.isEmpty else { return }
        let names = PartialFile.uniqueNames(requests.map(\.entry.path))
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 4096)
        defer { buffer.deallocate() }
        for request in candidates where !stop.isRequested() {
            prepare(request, name: names[request.entry.path]!, buffer: buffer)
        }
    }

    /// A run to fetch of at least twice this many bytes is fetched as several ranges at once (at most
    /// `mostPieces`), as a large file is: one connection would make a long stretch of new bytes (an
    /// appended part, say) slower than the whole file over several.
    static let pieceSize: Int64 = 32 << 20
    static let mostPieces = 4

    /// The record's segments for `runs`: copied runs done, runs to fetch from zero, long ones in pieces.
    static func segments(of runs: [DeltaAssembly.Run]) -> [ResumeRecord.SegmentProgress] {
        runs.flatMap { run -> [ResumeRecord.SegmentProgress] in
            let length = Int64(run.range.count)
            guard !run.copied else { return [.init(range: run.range, done: length)] }
            let pieces = min(Int64(mostPieces), max(1, length / pieceSize))
            return (0..<pieces).map { piece in
                let start = run.range.lowerBound + length * piece / pieces
                return .init(range: start..<run.range.lowerBound + length * (piece + 1) / pieces, done: 0)
            }
        }
    }

    private func prepare(_ request: TransferEngine.Request, name: String, buffer: UnsafeMutableRawBufferPointer) {
        let entry = request.entry
        // A partial the transfers can continue (a delta, or a download cut short) goes on as it is.
        if let fields = PartialFile.resumeFields(root: root, name: name, entry: entry), ResumeRecord.canResume(fields) { return }
        guard let chunks = entry.chunks, let old = DeltaAssembly.openOldVersion(of: entry.path, in: root) else { return }
        defer { close(old) }
        let source = FileDescriptor(old, path: root.path + "/" + entry.path)
        // An old version far larger than the new one, or mostly holes, is not read at all.
        guard (try? DeltaAssembly.isWorthCutting(source, forSize: entry.size)) == true,
              let partial = try? PartialFile(root: root, entry: entry, name: name, buffer: buffer, resumable: { _ in false })
        else { return }
        do throws(SystemError) {
            // A stop is heeded between reads, as the transfers heed it: the run ends at once, the partial left empty.
            guard let runs = try DeltaAssembly.fill(partial, from: source, chunks: chunks, buffer: buffer, shouldStop: stop.isRequested)
            else { return }
            let record = ResumeRecord(
                url: request.sources[0].url, etag: nil, lastModified: nil, segments: Self.segments(of: runs),
                reused: runs.lazy.filter(\.copied).map { Int64($0.range.count) }.reduce(0, +))
            try partial.saveResume(record.fields)
        } catch {
            // The old version could not be read or copied: the file is downloaded whole.
            try? partial.restart()
        }
    }
}
