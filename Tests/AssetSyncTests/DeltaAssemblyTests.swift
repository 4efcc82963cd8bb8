import Foundation
import Glibc
import Testing
@testable import AssetSyncCache
@testable import AssetSyncModel
@testable import AssetSyncPull
@testable import AssetSyncSystem
@testable import AssetSyncTransfer
import TestSupport

/// A delta's partial: the chunks an old version shares land at their new places, the
/// runs tile the file, their number is bounded, and the chunk-by-chunk proof finds what is missing.
@Suite struct DeltaAssemblyTests {
    static func randomBytes(_ count: Int, seed: UInt64) -> [UInt8] {
        var generator = SeededGenerator(seed: seed)
        let words = (0..<(count + 7) / 8).map { _ in generator.next() }
        return words.withUnsafeBytes { Array($0.prefix(count)) }
    }

    /// The partial of `new` assembled over `old` at `pack.bin` in a fresh cache, with its runs and bytes.
    static func assemble(
        old: [UInt8], new: [UInt8], shouldStop: () -> Bool = { false },
        _ body: (_ runs: [DeltaAssembly.Run]?, _ partial: PartialFile, _ chunks: ChunkList) throws -> Void
    ) throws {
        let directory = try TemporaryDirectory()
        let root = try CacheRoot(resolvedPath: directory.path + "/cache")
        try Data(old).write(to: URL(fileURLWithPath: root.path + "/pack.bin"))
        let chunks = new.withUnsafeBytes { ContentChunker.list(of: $0, parameters: ChunkListTests.small) }
        let entry = ManifestEntry(path: "pack.bin", size: Int64(new.count), crc32: 0, chunks: chunks)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 4096)
        defer { buffer.deallocate() }
        let partial = try PartialFile(root: root, entry: entry, name: "p", buffer: buffer, resumable: { _ in false })
        let old = try #require(DeltaAssembly.openOldVersion(of: "pack.bin", in: root))
        defer { close(old) }
        try body(try DeltaAssembly.fill(partial, from: FileDescriptor(old), chunks: chunks, buffer: buffer, shouldStop: shouldStop), partial, chunks)
    }

    /// The partial's bytes, read through its own descriptor (not Foundation's `Data(contentsOf:)`,
    /// whose read buffer the address sanitizer's leak checker reported here).
    static func contents(of partial: PartialFile) throws -> [UInt8] {
        let file = FileDescriptor(partial.fd, path: partial.displayPath)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 4096)
        defer { buffer.deallocate() }
        var bytes: [UInt8] = []
        try file.readPieces(length: Int64(try file.status().st_size), buffer: buffer) { bytes += $0 }
        return bytes
    }

    @Test func sharedChunksLandAtTheirNewPlacesAndTheRestIsLeftToFetch() throws {
        let old = Self.randomBytes(1 << 20, seed: 1)
        var new = old
        new.replaceSubrange(700_000..<710_000, with: Self.randomBytes(10_000, seed: 2))
        new.insert(contentsOf: Self.randomBytes(30_000, seed: 3), at: 200_000)
        try Self.assemble(old: old, new: new) { runs, partial, chunks in
            let runs = try #require(runs)
            #expect(runs.first?.range.lowerBound == 0 && runs.last?.range.upperBound == Int64(new.count))
            #expect(zip(runs, runs.dropFirst()).allSatisfy { $0.range.upperBound == $1.range.lowerBound && $0.copied != $1.copied })
            let copied = runs.filter(\.copied).map { Int($0.range.count) }.reduce(0, +)
            #expect(copied > new.count / 2 && runs.contains { !$0.copied })
            var bytes = try Self.contents(of: partial)
            #expect(bytes.count == new.count)
            for run in runs where run.copied { #expect(bytes[Int(run.range.lowerBound)..<Int(run.range.upperBound)] == new[Int(run.range.lowerBound)..<Int(run.range.upperBound)]) }
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 4096)
            defer { buffer.deallocate() }
            // The ranges still to fetch are holes: the proof names the first of their chunks.
            let first = try #require(runs.first { !$0.copied })
            let index = try #require(chunks.ranges.firstIndex { $0.lowerBound == first.range.lowerBound })
            #expect(DeltaAssembly.chunkMismatch(in: partial, chunks: chunks, buffer: buffer)?.hasPrefix("chunk \(index) (bytes \(first.range.lowerBound)-") == true)
            for run in runs where !run.copied {
                let range = Int(run.range.lowerBound)..<Int(run.range.upperBound)
                try new[range].withUnsafeBytes { try partial.write($0, at: run.range.lowerBound) }
                bytes.replaceSubrange(range, with: new[range])
            }
            #expect(bytes == new)
            #expect(DeltaAssembly.chunkMismatch(in: partial, chunks: chunks, buffer: buffer) == nil)
        }
    }

    @Test func anOldVersionThatSharesNoChunkGivesNoRuns() throws {
        try Self.assemble(old: Self.randomBytes(300_000, seed: 4), new: Self.randomBytes(300_000, seed: 5)) { runs, partial, _ in
            let bytes = try Self.contents(of: partial)
            #expect(runs == nil && bytes.isEmpty)
        }
    }

    @Test func aStopWhileCuttingOrCopyingLeavesThePartialEmpty() throws {
        let old = Self.randomBytes(1 << 20, seed: 1)
        var new = old
        new.replaceSubrange(700_000..<710_000, with: Self.randomBytes(10_000, seed: 2))
        new.insert(contentsOf: Self.randomBytes(30_000, seed: 3), at: 200_000)
        // Asked before each read of the old version (two: its one MiB, then its end), then before each
        // copy: a stop at the first question, and at the fourth, once the first shared stretch was copied.
        for stopAt in [1, 4] {
            var questions = 0
            try Self.assemble(old: old, new: new, shouldStop: {
                questions += 1
                return questions >= stopAt
            }) { runs, partial, _ in
                let bytes = try Self.contents(of: partial)
                #expect(runs == nil && questions == stopAt && bytes.isEmpty, "stopped at question \(stopAt)")
            }
        }
        try Self.assemble(old: old, new: new) { runs, _, _ in #expect(runs != nil, "without a stop, the same partial is a delta") }
    }

    /// A new file at `path` of `size` bytes, `data` at its start, then holes (`ftruncate`) or, when
    /// `allocated`, blocks reserved and never written (`posix_fallocate`); open for reading and writing.
    static func file(_ path: String, data: [UInt8] = [], size: Int, allocated: Bool = false) throws -> Int32 {
        let fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        try #require(fd >= 0)
        try data.withUnsafeBytes { try FileDescriptor(fd).writeAll($0, at: 0) }
        try #require(allocated ? posix_fallocate(fd, 0, off_t(size)) == 0 : ftruncate(fd, off_t(size)) == 0)
        return fd
    }

    @Test func anOldVersionIsCutOnlyWhenNeitherFarLargerThanTheNewNorMostlyHoles() throws {
        let directory = try TemporaryDirectory()
        let mebibyte = 1 << 20
        // 70 MiB of data: cut for a new file of 3 MiB (70 = 2 × 3 + 64) or more, not for 2 MiB.
        let dense = try Self.file(directory.path + "/dense", data: [UInt8](repeating: 7, count: 70 * mebibyte), size: 70 * mebibyte)
        defer { close(dense) }
        #expect(try DeltaAssembly.isWorthCutting(FileDescriptor(dense), forSize: Int64(3 * mebibyte)))
        #expect(try DeltaAssembly.isWorthCutting(FileDescriptor(dense), forSize: Int64(70 * mebibyte)))
        #expect(try !DeltaAssembly.isWorthCutting(FileDescriptor(dense), forSize: Int64(2 * mebibyte)))
        // 1 MiB of data, then holes to 256 MiB: never, even for a new file of the same size.
        let sparse = try Self.file(directory.path + "/sparse", data: Self.randomBytes(mebibyte, seed: 9), size: 256 * mebibyte)
        defer { close(sparse) }
        #expect(try !DeltaAssembly.isWorthCutting(FileDescriptor(sparse), forSize: Int64(256 * mebibyte)))
        // Holes to its middle, data from there: half of it is allocated, so it is cut.
        let half = try Self.file(directory.path + "/half", size: 32 * mebibyte)
        defer { close(half) }
        try [UInt8](repeating: 1, count: 32 * mebibyte).withUnsafeBytes { try FileDescriptor(half).writeAll($0, at: Int64(32 * mebibyte)) }
        #expect(try DeltaAssembly.isWorthCutting(FileDescriptor(half), forSize: Int64(64 * mebibyte)))
        // Blocks reserved and none written (read as zeros): allocated, so cut.
        let reserved = try Self.file(directory.path + "/reserved", size: 256 * mebibyte, allocated: true)
        defer { close(reserved) }
        #expect(try DeltaAssembly.isWorthCutting(FileDescriptor(reserved), forSize: Int64(256 * mebibyte)))
    }

    @Test func changesInEveryOtherChunkAreBoundedToTheMostRuns() throws {
        let old = Self.randomBytes(40 << 20, seed: 6)
        var new = old
        let chunks = old.withUnsafeBytes { ContentChunker.list(of: $0, parameters: ChunkListTests.small) }
        for (index, range) in chunks.ranges.enumerated() where index % 2 == 1 { new[Int(range.lowerBound) + 100] ^= 0xFF }
        try Self.assemble(old: old, new: new) { runs, partial, _ in
            let runs = try #require(runs)
            #expect(chunks.count > 2 * DeltaAssembly.maximumRuns)
            #expect(runs.count <= DeltaAssembly.maximumRuns && runs.contains(where: \.copied), "\(runs.count) runs")
            #expect(runs.first?.range.lowerBound == 0 && runs.last?.range.upperBound == Int64(new.count))
            let bytes = try Self.contents(of: partial)
            for run in runs where run.copied { #expect(bytes[Int(run.range.lowerBound)..<Int(run.range.upperBound)] == new[Int(run.range.lowerBound)..<Int(run.range.upperBound)]) }
        }
    }

    @Test func longRunsToFetchArePiecesFetchedAtOnce() {
        let mebibyte: Int64 = 1 << 20
        let runs = [
            DeltaAssembly.Run(range: 0..<(10 * mebibyte), copied: true),
            DeltaAssembly.Run(range: (10 * mebibyte)..<(40 * mebibyte), copied: false),  // under two pieces: one range
            DeltaAssembly.Run(range: (40 * mebibyte)..<(50 * mebibyte), copied: true),
            DeltaAssembly.Run(range: (50 * mebibyte)..<(50 * mebibyte + 100_000_001), copied: false),  // two pieces
            DeltaAssembly.Run(range: (50 * mebibyte + 100_000_001)..<(1 << 30), copied: false),  // at most four
        ]
        let segments = DeltaPreparation.segments(of: runs)
        #expect(segments.map(\.range.count) == [
            10_485_760, 31_457_280, 10_485_760, 50_000_000, 50_000_001, 230_328_255, 230_328_256, 230_328_256, 230_328_256,
        ])
        #expect(zip(segments, segments.dropFirst()).allSatisfy { $0.range.upperBound == $1.range.lowerBound })
        #expect(segments.last?.range.upperBound == 1 << 30)
        #expect(segments.map(\.done) == [10_485_760, 0, 10_485_760, 0, 0, 0, 0, 0, 0])
    }
}
