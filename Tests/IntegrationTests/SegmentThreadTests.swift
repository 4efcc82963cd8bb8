import Foundation
import Testing
import TestSupport

/// A large file's segments received on two threads (`ASSETSYNC_TRANSFER_THREADS`, default 2), so
/// that decrypting one file runs on two cores: seen in which threads read the file's bytes from
/// nginx's sockets, under strace.
@Suite(.serialized) struct SegmentThreadTests {
    /// Bytes each thread read from sockets (nginx's connections: the run opens no other) in a traced pull of a 4 MiB file in four 1 MiB segments.
    static func socketBytesByThread(threads: String) throws -> (result: RunResult, bytes: [Int: Int], content: Data?, expected: Data) {
        let body = PullNginxTests.random(PullSegmentTests.size)
        let sandbox = try Sandbox(serving: ["big.bin": body])
        defer { sandbox.checkInvariants() }
        // A rate per connection (without sendfile) keeps the four segments running at once.
        let nginx = try NginxServer(root: sandbox.served, extraConfig: "sendfile off; limit_rate 2m;")
        defer { nginx.stop() }
        _ = try sandbox.manifest(base: nginx.baseURL)
        let scratch = try TemporaryDirectory()
        let logPath = scratch.path + "/strace.log"
        var environment = Sandbox.environment(PullSegmentTests.segmented)
        environment["ASSETSYNC_TRANSFER_THREADS"] = threads
        let result = try AssetSyncBinary.run(
            ["pull", sandbox.manifestPath, "--dest", sandbox.dest], directory: sandbox.root.url, environment: environment,
            prefix: [CrashConsistencyTests.strace, "-f", "-y", "-qq", "-s", "0", "-o", logPath, "-e", "trace=read,recvfrom"])
        let log = StraceLog(try String(contentsOfFile: logPath, encoding: .utf8))
        var bytes: [Int: Int] = [:]
        for event in log.events where event.succeeded && event.arguments.first?.contains("<socket:") == true {
            bytes[event.tid, default: 0] += Int(event.result.prefix { $0.isNumber }) ?? 0
        }
        return (result, bytes, sandbox.finalContent("big.bin"), body)
    }

    /// The threads that read bytes from sockets in a pull with `threads` transfer threads, checked
    /// to succeed with the file's bytes, and how many bytes each read.
    static func readers(threads: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> [Int: Int] {
        let run = try socketBytesByThread(threads: threads)
        #expect(run.result.status == 0, "\(run.result.stderr)", sourceLocation: sourceLocation)
        #expect(run.content == run.expected, sourceLocation: sourceLocation)
        return run.bytes.filter { $0.value > 0 }
    }

    @Test("a large file's segments are received on two threads, each reading about half its bytes",
          .enabled(if: CrashConsistencyTests.hasStrace, "needs /usr/bin/strace"))
    func segmentsAreReceivedOnTwoThreads() throws {
        let readers = try Self.readers(threads: "2")
        #expect(readers.count == 2, "\(readers)")
        // Two segments each, 1 MiB apiece, and the heads: neither thread read less than 2 MiB.
        #expect(readers.values.allSatisfy { $0 >= 2 << 20 }, "\(readers)")
    }

    @Test("with ASSETSYNC_TRANSFER_THREADS=1 one thread receives every segment",
          .enabled(if: CrashConsistencyTests.hasStrace, "needs /usr/bin/strace"))
    func oneTransferThreadReceivesEverySegment() throws {
        let readers = try Self.readers(threads: "1")
        #expect(readers.count == 1 && readers.values.allSatisfy { $0 >= PullSegmentTests.size }, "\(readers)")
    }
}
