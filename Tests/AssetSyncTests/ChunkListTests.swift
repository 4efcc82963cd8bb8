import Foundation
import Testing
@testable import AssetSyncManifestIO
@testable import AssetSyncModel
@testable import AssetSyncSystem
import TestSupport

/// Chunk lists: the chunker's boundaries, the manifest's text of a list, its rules in
/// both readers, and the writer's round trip.
@Suite struct ChunkListTests {
    /// Small sizes, so that a few hundred KiB hold dozens of chunks.
    static let small = try! ChunkParameters(minimum: 4096, average: 16384, maximum: 65536)

    static func randomBytes(_ count: Int, seed: UInt64) -> [UInt8] {
        var generator = SeededGenerator(seed: seed)
        return (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }

    static func list(_ bytes: [UInt8], _ parameters: ChunkParameters = small) -> ChunkList {
        bytes.withUnsafeBytes { ContentChunker.list(of: $0, parameters: parameters) }
    }

    @Test func chunksRespectTheSizesAndAddUpToTheFile() {
        let bytes = Self.randomBytes(2 << 20, seed: 1)
        let list = Self.list(bytes)
        #expect(list.lengths.reduce(0) { $0 + Int($1) } == bytes.count)
        #expect(list.lengths.dropLast().allSatisfy { $0 >= 4096 && $0 <= 65536 })
        // Normalized chunking keeps the mean near the average (about 128 chunks for 2 MiB).
        #expect((90...170).contains(list.count), "\(list.count) chunks")
        let first = list.ranges[0]
        let digest = bytes.withUnsafeBytes { SHA256.digest(of: UnsafeRawBufferPointer(rebasing: $0[Int(first.lowerBound)..<Int(first.upperBound)])) }
        #expect(list.digests[0] == ChunkDigest(digest))
    }

    @Test func boundariesDoNotDependOnHowTheBytesArriveInPieces() {
        let bytes = Self.randomBytes(1 << 20, seed: 2)
        var chunker = ContentChunker(parameters: Self.small)
        var generator = SeededGenerator(seed: 3)
        bytes.withUnsafeBytes { all in
            var start = 0
            while start < all.count {
                let end = min(all.count, start + Int.random(in: 1...70_000, using: &generator))
                chunker.collect(UnsafeRawBufferPointer(rebasing: all[start..<end]))
                start = end
            }
        }
        #expect(chunker.finishList() == Self.list(bytes))
    }

    @Test func anInsertionChangesOnlyTheChunksAroundIt() {
        let old = Self.randomBytes(1 << 20, seed: 4)
        var new = old
        new.insert(contentsOf: Self.randomBytes(10_000, seed: 5), at: 300_000)
        let (before, after) = (Self.list(old), Self.list(new))
        let shared = Set(before.digests).intersection(after.digests)
        #expect(after.count - shared.count <= 3, "\(after.count - shared.count) new chunks of \(after.count)")
    }

    @Test func theTextRoundTripsAndItsRulesAreEnforced() throws {
        let bytes = Self.randomBytes(300_000, seed: 6)
        let list = Self.list(bytes)
        #expect(try ChunkList(manifestText: list.text, size: Int64(bytes.count)) == list)
        #expect(list.text.hasPrefix("4096,16384,65536:"))
        #expect(try ChunkList(manifestText: "4096,16384,65536:", size: 0).count == 0)
        func problem(_ text: String, size: Int64 = 300_000) -> String? {
            do {
                _ = try ChunkList(manifestText: text, size: size)
                return nil
            } catch {
                return error.problem
            }
        }
        let base64 = String(list.text.split(separator: ":")[1])
        #expect(problem(base64) == "chunks must be \"MIN,AVG,MAX:BASE64\" (the chunk sizes, then the packed list)")
        #expect(problem("4096,16384:" + base64) == "chunks must start with three sizes in bytes, \"MIN,AVG,MAX:\"")
        #expect(problem("4096,-1,65536:" + base64) == "chunks must start with three sizes in bytes, \"MIN,AVG,MAX:\"")
        #expect(problem("1024,16384,65536:" + base64) == "chunks sizes must lie between 4096 and 67108864 bytes")
        #expect(problem("4096,16384,16384:" + base64) == "chunks sizes must be minimum < average < maximum")
        #expect(problem("4096,20000,65536:" + base64) == "chunks average size must be a power of two")
        #expect(problem("4096,16384,65536:" + base64.dropLast()) == "chunks list is not valid base64: its length \(base64.count - 1) is not a multiple of 4")
        #expect(problem("4096,16384,65536:*" + base64.dropFirst()) == "chunks list is not valid base64: character 1 is not a base64 digit")
        #expect(problem("4096,16384,65536:AAAB") == "chunks list must be whole 20-byte records (length, then 16 bytes of SHA-256)")
        #expect(problem(list.text, size: 300_001) == "chunks lengths add up to 300000 bytes, not the size 300001")
        #expect(problem(list.text, size: 20_000)?.hasPrefix("chunks lists \(list.count) chunks, but a file of 20000 bytes has 1 to 5") == true)
        #expect(problem("4096,16384,65536:", size: 10) == "chunks lists 0 chunks, but a file of 10 bytes has 1 to 1 of them")
        // A first chunk shorter than the minimum, then one of the rest of the file.
        let short = ChunkList(parameters: Self.small, lengths: [100, 299_900], digests: Array(list.digests.prefix(2)))
        #expect(problem(short.text) == "chunks[0] is 100 bytes long; a chunk must be 4096 to 65536")
    }

    @Test func base64IsStrict() throws {
        for count in 0..<8 {
            let bytes = Self.randomBytes(count, seed: UInt64(count))
            #expect(try Base64.decode(Base64.encode(bytes).utf8).get() == bytes)
        }
        #expect(Base64.encode(Array("foobar".utf8)) == "Zm9vYmFy" && Base64.encode(Array("fo".utf8)) == "Zm8=")
        #expect(Base64.decode("Zm9=".utf8) == .failure(.paddingBits))
        #expect(Base64.decode("Zm=v".utf8) == .failure(.character(at: 3)))
        #expect(Base64.decode("Z===".utf8) == .failure(.character(at: 1)))
        #expect(Base64.decode("Zm 9".utf8) == .failure(.character(at: 2)))
    }

    @Test func bothReadersTakeTheListAndTheWriterKeepsIt() throws {
        let bytes = Self.randomBytes(200_000, seed: 7)
        let entry = ManifestEntry(path: "a.bin", size: 200_000, crc32: 1, chunks: Self.list(bytes))
        let manifest = Manifest(base: "http://h/", entries: [entry, ManifestEntry(path: "b", size: 1, crc32: 2)])
        for format in [ManifestWriter.Format.xml, .json] {
            let text = ManifestWriter.render(manifest, as: format)
            #expect(text.contains(entry.chunks!.text))
            #expect(try readManifest(text) == manifest)
        }
    }

    @Test func theChunkExamplesGiveTheSameManifest() throws {
        let xml = try ManifestReader.read(path: packageRoot.appendingPathComponent("manifests/example-chunks.xml").path)
        let json = try ManifestReader.read(path: packageRoot.appendingPathComponent("manifests/example-chunks.json").path)
        #expect(xml == json)
        #expect(xml.entries.first?.chunks?.lengths == [1 << 20, 1 << 20, 1 << 20])
        #expect(xml.entries.first?.chunks?.parameters == .standard)
    }

    @Test(arguments: [
        (#"<manifest version="1" base="http://h/"><file path="a" size="5" crc32="00000001" chunks="4096,16384,65536:AAAAB"/></manifest>"#,
         #"m:1:40: <file>: chunks list is not valid base64: its length 5 is not a multiple of 4: "4096,16384,65536:AAAAB""#),
        (#"{"version": 1, "base": "http://h/", "files": [{"chunks": "4096,16384,65536:AAAABQ==", "path": "a", "size": 5, "crc32": "00000001"}]}"#,
         #"m:1:58: files[0]: chunks list must be whole 20-byte records (length, then 16 bytes of SHA-256): "4096,16384,65536:AAAABQ==""#),
        (#"{"version": 1, "base": "http://h/", "files": [{"path": "a", "size": 5, "crc32": "00000001", "chunks": 5}]}"#,
         #"m:1:103: files[0]: chunks must be a string, not a number"#),
    ])
    func readersNameTheEntryAndTheRule(_ text: String, _ expected: String) {
        #expect(manifestError(text) == expected)
    }
}
