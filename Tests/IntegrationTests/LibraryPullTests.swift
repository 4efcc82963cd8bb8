import AssetSync
import Foundation
import Glibc
import Synchronization
import Testing
import TestSupport

/// The `AssetSync` library in this process, through its public API only, against nginx: a pull with
/// its events and report, the same as an `AsyncSequence`, a plan, a verify, cancellation as SIGINT,
/// and the errors a pull that cannot run throws.
@Suite struct LibraryPullTests {
    /// The events an observer heard, from whichever thread.
    final class Heard: Sendable {
        private let events = Mutex<[PullEvent]>([])
        func add(_ event: PullEvent) { events.withLock { $0.append(event) } }
        var all: [PullEvent] { events.withLock { $0 } }
    }

    /// Cancels a task once asked, from any thread, whether it was asked before or after it holds the task.
    final class Canceller: Sendable {
        private let state = Mutex<(task: Task<PullReport, any Error>?, asked: Bool)>((nil, false))
        func hold(_ task: Task<PullReport, any Error>) {
            if state.withLock({ $0.task = task; return $0.asked }) { task.cancel() }
        }
        func cancel() { state.withLock { $0.asked = true; return $0.task }?.cancel() }
        var wasAsked: Bool { state.withLock { $0.asked } }
    }

    /// Whether `condition` holds within `timeout` seconds, asked every 50 ms without blocking a thread
    /// of the cooperative pool (on two cores, a blocked one can keep the pull's task from starting).
    static func eventually(timeout: Double = 60, _ condition: () -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(timeout)
        while ContinuousClock.now < deadline {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return condition()
    }

    static func served(_ files: [String: Data]) throws -> (sandbox: Sandbox, nginx: NginxServer, manifest: String) {
        let sandbox = try Sandbox(serving: files)
        let nginx = try NginxServer(root: sandbox.served, extraConfig: NginxServer.slowLocation(serving: sandbox.served))
        return (sandbox, nginx, try sandbox.manifest(base: nginx.baseURL))
    }

    @Test("a pull through the library commits every file, tells each one's events, and the next finds them current")
    func aPullCommitsEveryFileAndTellsItsEvents() async throws {
        let (sandbox, nginx, manifest) = try Self.served(["a.bin": PullNginxTests.random(3000), "d/b.bin": PullNginxTests.random(300_000)])
        defer { nginx.stop() }
        let request = PullRequest(manifest: .file(manifest), destination: sandbox.dest)
        let heard = Heard()
        let report = try await AssetSync.pull(request) { heard.add($0) }
        #expect(report.succeeded)
        #expect(Set(report.files.map(\.path)) == ["a.bin", "d/b.bin"])
        #expect(report.files.allSatisfy { $0.outcome == .committed })
        #expect(try sandbox.cached() == sandbox.expected)
        guard case .planned(let plan) = heard.all.first else { Issue.record("the first event was not the plan: \(heard.all)"); return }
        #expect(plan.new == 2 && plan.files == 2 && plan.bytesToDownload == 303_000)
        let finished = heard.all.compactMap { if case .finished(let file) = $0 { file } else { nil } }
        #expect(Set(finished.map(\.path)) == ["a.bin", "d/b.bin"])
        #expect(heard.all.contains { if case .started(path: "d/b.bin", size: 300_000, resumingAt: 0, url: _) = $0 { true } else { false } })

        let again = try await AssetSync.pull(request)
        #expect(again.succeeded && again.files.allSatisfy { $0.outcome == .current })
        let summary = try await AssetSync.plan(request)
        #expect(summary.current == 2 && summary.new == 0)
    }

    @Test("a Metalink the library describes is pulled through it, and what one leaves out is a warning event")
    func aMetalinkIsDescribedAndPulledWithItsNotesAsWarnings() async throws {
        let sandbox = try Sandbox(serving: ["a.bin": PullNginxTests.random(4000)])
        let nginx = try NginxServer(root: sandbox.served)
        defer { nginx.stop() }
        let text = try await AssetSync.describe(directory: sandbox.served.path, base: nginx.baseURL, format: .metalink)
        #expect(text.contains("<hash type=\"sha-256\">") && text.contains("<url priority=\"1\">\(nginx.baseURL)a.bin</url>"))
        let withPieces = text.replacingOccurrences(of: "</hash>\n", with: "</hash>\n    <pieces length=\"1024\" type=\"sha-1\"><hash>00</hash></pieces>\n")
        let heard = Heard()
        let report = try await AssetSync.pull(PullRequest(manifest: .bytes(Array(withPieces.utf8), name: "a.meta4"), destination: sandbox.dest)) {
            heard.add($0)
        }
        #expect(report.succeeded && report.files.map(\.path) == ["a.bin"])
        #expect(try sandbox.cached() == sandbox.expected)
        let warnings = heard.all.compactMap { if case .warning(let text) = $0 { text } else { nil } }
        #expect(warnings == ["a Metalink's <pieces> are not used: each file is proven whole by its SHA-256"])
    }

    @Test("the events of a pull as an AsyncSequence end with the report")
    func theEventSequenceEndsWithTheReport() async throws {
        let (sandbox, nginx, manifest) = try Self.served(["a.bin": PullNginxTests.random(5000)])
        defer { nginx.stop() }
        var events: [PullEvent] = []
        for try await event in AssetSync.events(of: PullRequest(manifest: .file(manifest), destination: sandbox.dest)) {
            events.append(event)
        }
        guard case .completed(let report) = events.last else { Issue.record("the sequence did not end with the report: \(events)"); return }
        #expect(report.succeeded && report.files.count == 1)
        #expect(events.contains { if case .finished(let file) = $0 { file.path == "a.bin" && file.outcome == .committed } else { false } })
        #expect(try sandbox.cached() == sandbox.expected)
    }

    @Test("cancelling the task stops a pull as SIGINT does: its partial is kept and the next pull resumes it")
    func cancellingThePullKeepsItsPartialForTheNext() async throws {
        let (sandbox, nginx, _) = try Self.served(["big.bin": PullNginxTests.random(12 << 20)])
        defer { nginx.stop() }
        let slow = try sandbox.manifest(base: nginx.baseURL + "slow/")
        let request = PullRequest(manifest: .file(slow), destination: sandbox.dest)
        // Cancelled from the observer, on the pull's own thread, once 1 MiB is in: however busy the
        // cooperative pool is, the pull is cut short in the middle.
        let canceller = Canceller()
        let pull = Task {
            try await AssetSync.pull(request) { event in
                if case .progress(let progress) = event, progress.bytesDone >= 1 << 20 { canceller.cancel() }
            }
        }
        canceller.hold(pull)
        await #expect(throws: AssetSyncError.self) { try await pull.value }
        let started = canceller.wasAsked
        do {
            _ = try await pull.value
        } catch let error as AssetSyncError {
            #expect(error.kind == .cancelled, "\(error)")
        }
        try #require(started, "the pull was never 1 MiB in")
        #expect(!sandbox.partialSizes().isEmpty, "the partial was not kept")
        nginx.clearAccessLog()
        let resumed = try await AssetSync.pull(request)
        #expect(resumed.succeeded)
        #expect(try sandbox.cached() == sandbox.expected)
        #expect(nginx.settledAccessLog().contains { $0.range != nil }, "the next pull did not resume with Range")
    }

    @Test("verify through the library names a file changed behind the state index")
    func verifyNamesACorruptFile() async throws {
        let (sandbox, nginx, manifest) = try Self.served(["a.bin": PullNginxTests.random(4000), "b.bin": PullNginxTests.random(4000)])
        defer { nginx.stop() }
        let request = PullRequest(manifest: .file(manifest), destination: sandbox.dest)
        #expect(try await AssetSync.pull(request).succeeded)
        let handle = try #require(FileHandle(forWritingAtPath: sandbox.dest + "/b.bin"))
        try handle.write(contentsOf: Data("changed".utf8))
        try handle.close()
        let report = try await AssetSync.verify(request)
        #expect(!report.succeeded && report.good == 1)
        let verdict = report.files.first { $0.path == "b.bin" }?.verdict
        guard case .corrupt(let why) = verdict else { Issue.record("b.bin: \(String(describing: verdict))"); return }
        #expect(why.hasPrefix("CRC-32 is "), "\(why)")
    }

    @Test("a pull that cannot run throws one error with its kind: a bad manifest makes nothing, a held lock says so")
    func aPullThatCannotRunThrowsItsKind() async throws {
        let sandbox = try Sandbox()
        let bad = PullRequest(manifest: .bytes(Array(#"{"version":1,"files":[{"path":"../x","size":1,"crc32":"00000000"}]}"#.utf8), name: "bad.json"),
                              destination: sandbox.dest)
        do {
            _ = try await AssetSync.pull(bad)
            Issue.record("a bad manifest was pulled")
        } catch {
            #expect(error.kind == .invalidInput && error.message.contains("bad.json"), "\(error)")
        }
        #expect(!FileManager.default.fileExists(atPath: sandbox.dest), "a bad manifest made the destination")
        var jobs = PullRequest(manifest: .bytes(Array(#"{"version":1,"files":[]}"#.utf8), name: "empty.json"), destination: sandbox.dest)
        jobs.network.jobs = 0
        await #expect(throws: AssetSyncError.self) { try await AssetSync.pull(jobs) }
        let empty = PullRequest(manifest: .bytes(Array(#"{"version":1,"files":[]}"#.utf8), name: "empty.json"), destination: sandbox.dest)
        #expect(try await AssetSync.pull(empty).succeeded)
        // Another run's lock, as flock(2) on the lock file makes it.
        let held = open(sandbox.dest + "/.assetsync/lock", O_RDWR | O_CLOEXEC)
        try #require(held >= 0 && flock(held, LOCK_EX | LOCK_NB) == 0)
        defer { close(held) }
        do {
            _ = try await AssetSync.pull(empty)
            Issue.record("a pull ran while another held the lock")
        } catch {
            #expect(error.kind == .lockHeld, "\(error)")
        }
    }

    @Test("a pull in generations publishes each set whole, the next stays in generations, and rollback goes back once it is checked")
    func generationsArePublishedWholeAndRolledBack() async throws {
        let versions = try TwoVersions(count: 4, size: 3000)
        defer { versions.nginx.stop() }
        let dest = versions.sandbox.dest
        var first = PullRequest(manifest: .file(versions.manifests[0]), destination: dest)
        first.layout = .generations(keep: 3)
        let heard = Heard()
        let report = try await AssetSync.pull(first) { heard.add($0) }
        #expect(report.succeeded && report.publishedGeneration == "gen-000001")
        #expect(heard.all.contains(.published(generation: "gen-000001")))
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: dest)) == "dest.assetsync/gen-000001")
        // Remembered: a request that says nothing of the layout stays in generations.
        let second = try await AssetSync.pull(PullRequest(manifest: .file(versions.manifests[1]), destination: dest))
        #expect(second.succeeded && second.publishedGeneration == "gen-000002")
        #expect(try versions.sandbox.cached() == versions.contents[1])
        #expect(try await AssetSync.rollback(destination: dest, readingEveryFile: true) == "gen-000001")
        #expect(try versions.sandbox.cached() == versions.contents[0])
        do {
            _ = try await AssetSync.rollback(destination: dest)
            Issue.record("rolled back past the first generation")
        } catch {
            #expect(error.kind == .invalidInput && error.message.contains("no generation before the current one"), "\(error)")
        }
        var plain = PullRequest(manifest: .file(versions.manifests[1]), destination: dest)
        plain.layout = .plainDirectory
        #expect(try await AssetSync.pull(plain).succeeded)
        #expect(Sandbox.kind(dest) == S_IFDIR)
        #expect(try versions.sandbox.cached() == versions.contents[1])
    }

    @Test("with trusted keys the library admits a signed manifest, local or remote, and refuses an unsigned or replayed one as untrusted")
    func trustedKeysAdmitOnlyASignedManifest() async throws {
        let (sandbox, nginx, manifest) = try SignedManifestTests.served { try NginxServer(root: $0) }
        defer { nginx.stop() }
        let keys = [SignedManifestTests.fixture("signing-test.pub")]
        var unsigned = PullRequest(manifest: .file(manifest), destination: sandbox.dest)
        unsigned.trustedKeyFiles = keys
        do {
            _ = try await AssetSync.pull(unsigned)
            Issue.record("an unsigned manifest was pulled")
        } catch {
            #expect(error.kind == .untrusted && error.message.contains("not trustworthy"), "\(error)")
        }
        #expect(!FileManager.default.fileExists(atPath: sandbox.dest + "/a.bin"))
        let replay = try SignedManifestTests.signTwoVersions(sandbox, manifest)
        #expect(try await AssetSync.pull(unsigned).succeeded, "version 2, signed")
        try replay()
        do {
            _ = try await AssetSync.pull(unsigned)
            Issue.record("a replayed version 1 was pulled after version 2")
        } catch {
            #expect(error.kind == .untrusted && error.message.contains("rollback"), "\(error)")
        }
        // A remote manifest and its URL.minisig.
        try sandbox.serveManifest(base: nginx.baseURL)
        try SignedManifestTests.sign(sandbox.served.path + "/" + Sandbox.manifestName, version: 3)
        var remote = PullRequest(manifest: .url(nginx.url(Sandbox.manifestName)), destination: sandbox.dest)
        remote.trustedKeyFiles = keys
        #expect(try await AssetSync.pull(remote).succeeded)
        var bytes = PullRequest(manifest: .bytes(Array("{}".utf8), name: "m.json"), destination: sandbox.dest)
        bytes.trustedKeyFiles = keys
        await #expect(throws: AssetSyncError.self) { try await AssetSync.pull(bytes) }
    }
}
