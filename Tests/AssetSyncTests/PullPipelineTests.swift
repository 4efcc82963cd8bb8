import Foundation
import Synchronization
import Testing
@testable import AssetSyncCache
@testable import AssetSyncModel
@testable import AssetSyncPull
@testable import AssetSyncSystem
@testable import AssetSyncTransfer
import TestSupport

/// One pull from plan to state index, with the network replaced by `FakeTransport`: the real
/// partial files, proof, commits, state index and events, in a temporary DEST.
@Suite struct PullPipelineTests {
    static let base = "http://fake.invalid/"
    static let files: [(path: String, body: [UInt8])] = [
        ("a.bin", Array("hello world".utf8)),
        ("dir/b.txt", Array("the second file".utf8)),
        ("c.dat", Array(repeating: 7, count: 3000)),
    ]

    static func entry(_ path: String, _ body: [UInt8]) -> ManifestEntry {
        var crc = CRC32()
        body.withUnsafeBytes { crc.update($0) }
        return ManifestEntry(path: path, size: Int64(body.count), crc32: crc.value)
    }

    static let manifest = Manifest(base: base, entries: files.map { entry($0.path, $0.body) })

    static func body(_ path: String) -> [UInt8] { files.first { $0.path == path }!.body }

    private func pull(
        _ directory: TemporaryDirectory, _ transport: FakeTransport, events: RecordingEvents = RecordingEvents(),
        stop: StopSource = .never, manifest: Manifest = Self.manifest, minimumResumableSize: Int64 = 0
    ) throws -> PullOutcome {
        var options = TransferOptions()
        options.retryBaseDelay = 0.01
        options.minimumResumableSize = minimumResumableSize
        let root = try CacheRoot(resolvedPath: directory.path)
        return try PullSession(
            manifest: manifest, root: root, options: options, events: events, stop: stop, transport: transport
        ).run()
    }

    private func contents(_ directory: TemporaryDirectory, _ path: String) -> [UInt8]? {
        FileManager.default.contents(atPath: directory.path + "/" + path).map(Array.init)
    }

    private func stateIndex(_ directory: TemporaryDirectory) throws -> [String: StateIndex.Record] {
        try #require(StateIndex.committed(in: try CacheRoot(resolvedPath: directory.path))).records
    }

    /// The partials kept in DEST, by name, with their sizes.
    private func partials(_ directory: TemporaryDirectory) -> [String: Int] {
        let partial = directory.path + "/.assetsync/partial"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: partial)) ?? []
        return Dictionary(uniqueKeysWithValues: names.filter { $0.hasSuffix(".part") }.map {
            ($0, FileManager.default.contents(atPath: partial + "/" + $0)?.count ?? -1)
        })
    }

    @Test("new and changed files are downloaded, proven, committed and recorded in the state index")
    func newFilesAreCommitted() throws {
        let directory = try TemporaryDirectory()
        try directory.write("a.bin", "old")
        let transport = FakeTransport(responses: Dictionary(uniqueKeysWithValues: Self.files.map { ($0.path, [.ok($0.body)]) }))
        let outcome = try pull(directory, transport)
        #expect(!outcome.interrupted && !outcome.stoppedByLocalError)
        #expect(outcome.results.map { "\($0.path) \($0.action) \($0.outcome)" } == [
            "a.bin changed committed", "dir/b.txt new committed", "c.dat new committed",
        ])
        for (path, body) in Self.files { #expect(contents(directory, path) == body, "\(path)") }
        let records = try stateIndex(directory)
        #expect(records.mapValues(\.crc32) == Dictionary(uniqueKeysWithValues: Self.manifest.entries.map { ($0.path, $0.crc32) }))
        #expect(partials(directory).isEmpty)

        // The index proves them: a second pull asks the transport for nothing.
        let again = try pull(directory, FakeTransport())
        #expect(again.results.map(\.outcome) == [.current, .current, .current])
    }

    @Test("a file that fails is reported failed while the others commit, and is not recorded")
    func oneFailureOthersCommit() throws {
        let directory = try TemporaryDirectory()
        var responses = Dictionary(uniqueKeysWithValues: Self.files.map { ($0.path, [FakeTransport.Response.ok($0.body)]) })
        responses["dir/b.txt"] = [.status(404)]
        let outcome = try pull(directory, FakeTransport(responses: responses))
        #expect(!outcome.interrupted && !outcome.stoppedByLocalError)
        let failure = Failure(isLocal: false, reason: "HTTP 404", httpStatus: 404, url: Self.base + "dir/b.txt")
        #expect(outcome.results.map(\.outcome) == [.committed, .failed(failure), .committed])
        #expect(contents(directory, "a.bin") == Self.body("a.bin") && contents(directory, "c.dat") == Self.body("c.dat"))
        #expect(contents(directory, "dir/b.txt") == nil)
        #expect(Set(try stateIndex(directory).keys) == ["a.bin", "c.dat"])
        #expect(partials(directory).isEmpty)  // a failure with no byte received leaves no partial
    }

    @Test("an interruption keeps the partial, reports the rest interrupted, and the next pull resumes it")
    func interruptionKeepsPartials() throws {
        let directory = try TemporaryDirectory()
        let stopped = Mutex(false)
        // ^C while dir/b.txt is downloading: its first 5 bytes have arrived.
        let events = RecordingEvents { path in if path == "dir/b.txt" { stopped.withLock { $0 = true } } }
        let stop = StopSource(wakeFD: -1, isRequested: { stopped.withLock { $0 } })
        let b = Self.body("dir/b.txt")
        let first = FakeTransport(responses: ["a.bin": [.ok(Self.body("a.bin"))], "dir/b.txt": [.ok(Array(b[..<5]))]])
        let outcome = try pull(directory, first, events: events, stop: stop)
        #expect(outcome.interrupted)
        #expect(outcome.results.map(\.outcome) == [.committed, .interrupted, .interrupted])
        #expect(Array(events.lines.suffix(2)) == ["finished dir/b.txt: interrupted", "finished c.dat: interrupted"])
        #expect(contents(directory, "dir/b.txt") == nil)
        #expect(Array(partials(directory).values) == [5])
        #expect(Set(try stateIndex(directory).keys) == ["a.bin"])

        // The next pull asks for the rest of dir/b.txt only, and commits everything.
        let resumed = RecordingEvents()
        let second = FakeTransport(responses: [
            "dir/b.txt": [.init(head: ["HTTP/1.1 206 Partial Content", "Content-Range: bytes 5-\(b.count - 1)/\(b.count)"], body: Array(b[5...]))],
            "c.dat": [.ok(Self.body("c.dat"))],
        ])
        let again = try pull(directory, second, events: resumed)
        #expect(!again.interrupted)
        #expect(again.results.map(\.outcome) == [.current, .committed, .committed])
        #expect(resumed.lines.contains("started dir/b.txt at 5 from \(Self.base)dir/b.txt"))
        for (path, body) in Self.files { #expect(contents(directory, path) == body, "\(path)") }
        #expect(partials(directory).isEmpty)
    }

    @Test("an interrupted download below the resume threshold leaves no partial, and the next pull restarts it from zero")
    func interruptedSmallFileRestarts() throws {
        let directory = try TemporaryDirectory()
        let stopped = Mutex(false)
        let events = RecordingEvents { path in if path == "dir/b.txt" { stopped.withLock { $0 = true } } }
        let stop = StopSource(wakeFD: -1, isRequested: { stopped.withLock { $0 } })
        let b = Self.body("dir/b.txt")
        let first = FakeTransport(responses: ["a.bin": [.ok(Self.body("a.bin"))], "dir/b.txt": [.ok(Array(b[..<5]))]])
        let outcome = try pull(directory, first, events: events, stop: stop, minimumResumableSize: 256 << 10)
        #expect(outcome.results.map(\.outcome) == [.committed, .interrupted, .interrupted])
        #expect(contents(directory, "dir/b.txt") == nil)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path + "/.assetsync/partial").isEmpty)

        let restarted = RecordingEvents()
        let second = FakeTransport(responses: ["dir/b.txt": [.ok(b)], "c.dat": [.ok(Self.body("c.dat"))]])
        let again = try pull(directory, second, events: restarted, minimumResumableSize: 256 << 10)
        #expect(again.results.map(\.outcome) == [.current, .committed, .committed])
        #expect(restarted.lines.contains("started dir/b.txt at 0 from \(Self.base)dir/b.txt"))
        for (path, body) in Self.files { #expect(contents(directory, path) == body, "\(path)") }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path + "/.assetsync/partial").isEmpty)
    }

    @Test("the events reach the injected sink in order: plan, each file's start, retries and result")
    func eventsInOrder() throws {
        let directory = try TemporaryDirectory()
        let manifest = Manifest(base: Self.base, entries: [
            Self.entry("a.bin", Self.body("a.bin")), Self.entry("empty", []), Self.entry("c.dat", Self.body("c.dat")),
        ])
        let events = RecordingEvents()
        let transport = FakeTransport(responses: [
            "a.bin": [.status(503), .ok(Self.body("a.bin"))],
            "c.dat": [.ok(Array(repeating: 8, count: 3000)), .ok(Self.body("c.dat"))],  // a CRC mismatch, then the right bytes
        ])
        let outcome = try pull(directory, transport, events: events, manifest: manifest)
        #expect(outcome.results.map(\.outcome) == [.committed, .committed, .committed])
        #expect(events.lines == [
            "planned new a.bin, new empty, new c.dat",
            "finished empty: committed",
            "started a.bin at 0 from \(Self.base)a.bin",
            "retry a.bin: HTTP 503",
            "finished a.bin: committed",
            "started c.dat at 0 from \(Self.base)c.dat",
            "retry c.dat: CRC-32 is 9f07a835, expected e196e038; downloading again from zero",
            "finished c.dat: committed",
        ])
    }
}
