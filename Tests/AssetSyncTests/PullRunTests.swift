import Foundation
import Synchronization
import Testing
@testable import AssetSyncCache
import AssetSyncManifestIO
@testable import AssetSyncModel
@testable import AssetSyncPull
@testable import AssetSyncSystem
@testable import AssetSyncTransfer
@testable import AssetSyncTrust
import TestSupport

/// The use case the library and the command line both run, in process: a local manifest, the files
/// answered by `FakeTransport`, the clock and the stop source injected. Which failure is told first,
/// lock waits, trust, deletion limits, generations, verification and rollback.
@Suite struct PullRunTests {
    static let files = PullPipelineTests.files

    /// A directory with the test manifest at `manifest.json`, and a destination `dest` in it (not made yet).
    final class Setup {
        let directory: TemporaryDirectory
        var manifestPath: String { directory.path + "/manifest.json" }
        var dest: String { directory.path + "/dest" }

        init(manifest: Manifest = PullPipelineTests.manifest) throws {
            directory = try TemporaryDirectory()
            try directory.write("manifest.json", ManifestWriter.render(manifest, as: .json))
        }

        func request() -> SyncRequest {
            var request = SyncRequest(manifest: .path(manifestPath), dest: dest)
            request.options.retryBaseDelay = 0.01
            return request
        }
    }

    static let answered = FakeTransport(responses: Dictionary(uniqueKeysWithValues: files.map { ($0.path, [.ok($0.body)]) }))

    static func effects(_ transport: FakeTransport = answered, stop: StopSource = .never, clock: @escaping @Sendable () -> Double = MonotonicClock.now) -> PullRun.Effects {
        var effects = PullRun.Effects(stop: stop)
        effects.transport = transport
        effects.clock = clock
        return effects
    }

    static func pull(
        _ request: SyncRequest, _ effects: PullRun.Effects = effects(), events: RecordingEvents = RecordingEvents()
    ) throws(PullRunFailure) -> PullResult {
        try PullRun(request, effects: effects).pull(events: events)
    }

    /// The failure `body` throws, or nil.
    static func failure<T>(_ body: () throws(PullRunFailure) -> T) -> PullRunFailure? {
        do { _ = try body(); return nil } catch { return error }
    }

    @Test("a bad local manifest is the failure told, ahead of a destination that cannot be made, and nothing is made")
    func aBadManifestIsToldFirst() throws {
        let setup = try Setup()
        try setup.directory.write("manifest.json", "{\"base\": \"http://fake.invalid/\", \"files\": [{\"path\": \"../x\"}]}")
        try setup.directory.write("file", "not a directory")
        var request = setup.request()
        request.dest = setup.directory.path + "/file/dest"
        guard case .manifest(let error) = Self.failure({ () throws(PullRunFailure) in try Self.pull(request) }) else {
            Issue.record("the manifest's failure was not the one told")
            return
        }
        #expect(error.manifest.hasSuffix("manifest.json"))
        // With a destination that can be made, the bad manifest leaves nothing of it either.
        guard case .manifest = Self.failure({ () throws(PullRunFailure) in try Self.pull(setup.request()) }) else {
            Issue.record("the manifest's failure was not told")
            return
        }
        #expect(!FileManager.default.fileExists(atPath: setup.dest + "/.assetsync"))
    }

    @Test("another run's lock is waited for by the injected clock, then the run fails naming the wait; a stop while waiting interrupts it")
    func aHeldLockIsWaitedForThenFails() throws {
        let setup = try Setup()
        _ = try Self.pull(setup.request())
        let held = try CacheLock(root: try CacheRoot(resolvedPath: setup.dest), wait: 0)
        defer { withExtendedLifetime(held) {} }
        var request = setup.request()
        request.lockWait = 30
        // A clock that runs a second per reading: thirty "seconds" of waiting pass at once.
        let ticks = Mutex(0.0)
        let clock: @Sendable () -> Double = { ticks.withLock { $0 += 1; return $0 } }
        guard case .lockHeld(_, let wait) = Self.failure({ () throws(PullRunFailure) in try Self.pull(request, Self.effects(clock: clock)) }) else {
            Issue.record("a held lock was not the failure")
            return
        }
        #expect(wait == 30)
        #expect(ticks.withLock { $0 } >= 30)
        let stopped = StopSource(wakeFD: -1, isRequested: { true })
        guard case .interrupted = Self.failure({ () throws(PullRunFailure) in try Self.pull(request, Self.effects(stop: stopped)) }) else {
            Issue.record("a stop while waiting for the lock did not interrupt the run")
            return
        }
    }

    @Test("with trusted keys, an unsigned manifest is refused before any file is touched, and a signed one is pulled")
    func trustedKeysRefuseAnUnsignedManifest() throws {
        let setup = try Setup()
        let keyFile = try setup.directory.write("test.pub", MinisignTests.fixture("signing-test.pub"))
        var request = setup.request()
        request.trustedKeyFiles = [keyFile]
        let heard = RecordingEvents()
        guard case .untrusted(let refusal, _) = Self.failure({ () throws(PullRunFailure) in try Self.pull(request, events: heard) }) else {
            Issue.record("an unsigned manifest was not refused")
            return
        }
        #expect(heard.lines == ["refused missing"])
        #expect(refusal.reason == .missing)
        #expect(!FileManager.default.fileExists(atPath: setup.dest))
        let bytes = try Array(Data(contentsOf: URL(fileURLWithPath: setup.manifestPath)))
        try setup.directory.write("manifest.json.minisig", Data(MinisignTests.signed(bytes, comment: "assetsync version=3")))
        let pulled = try Self.pull(request)
        #expect(pulled.outcome.isComplete)
        // Standard input has no signature beside it: trusted keys cannot admit it.
        request.manifest = .descriptor(0, name: "<stdin>")
        guard case .unsignable("<stdin>") = Self.failure({ () throws(PullRunFailure) in try Self.pull(request) }) else {
            Issue.record("a manifest on standard input was not refused as unsignable")
            return
        }
    }

    @Test("removing extras stops before removing more than allowed, and never in a directory no pull completed")
    func deletionLimitsHold() throws {
        let setup = try Setup()
        var request = setup.request()
        request.deleteUpTo = 1
        try setup.directory.write("dest/stray", "x")
        guard case .deleteInUnmanagedDirectory = Self.failure({ () throws(PullRunFailure) in try Self.pull(request) }) else {
            Issue.record("extras were removed from an unmanaged directory")
            return
        }
        _ = try Self.pull(setup.request())
        try setup.directory.write("dest/other", "y")
        guard case .tooManyDeletions(2, 1) = Self.failure({ () throws(PullRunFailure) in try Self.pull(request) }) else {
            Issue.record("more extras than allowed were not refused")
            return
        }
        #expect(FileManager.default.fileExists(atPath: setup.dest + "/stray") && FileManager.default.fileExists(atPath: setup.dest + "/other"))
        request.deleteUpTo = 2
        let pulled = try Self.pull(request)
        #expect(Set(pulled.outcome.deletion.removed) == ["stray", "other"])
    }

    @Test("in generations, a pull missing a file publishes nothing; one with every file publishes the next, and rollback goes back to it")
    func generationsPublishOnlyWholeSets() throws {
        let setup = try Setup()
        var request = setup.request()
        request.keep = 2
        guard case .keepWithoutGenerations = Self.failure({ () throws(PullRunFailure) in try Self.pull(request) }) else {
            Issue.record("a number to keep was taken for a destination not in generations")
            return
        }
        request.layout = .atomic
        var responses = Self.answered.responses
        responses["a.bin"] = [.status(404)]
        let failed = try Self.pull(request, Self.effects(FakeTransport(responses: responses)))
        #expect(!failed.outcome.isComplete && failed.published == nil && failed.publishFailure == nil)
        #expect(!FileManager.default.fileExists(atPath: setup.dest))
        let heard = RecordingEvents()
        let first = try Self.pull(request, events: heard)
        #expect(first.published != nil)
        #expect(heard.lines.last == "published \(first.published ?? "")")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: setup.dest).hasSuffix(first.published!))
        #expect(try Data(contentsOf: URL(fileURLWithPath: setup.dest + "/a.bin")) == Data(Self.files[0].body))
        try setup.directory.write("manifest.json", ManifestWriter.render(
            Manifest(base: PullPipelineTests.base, entries: [PullPipelineTests.entry("a.bin", Array("v2".utf8))]), as: .json))
        let second = try Self.pull(setup.request(), Self.effects(FakeTransport(responses: ["a.bin": [.ok(Array("v2".utf8))]])))
        #expect(second.published != nil && second.published != first.published)
        let back = try PullRun.rollback(dest: setup.dest, reading: true, lockWait: 0, effects: Self.effects(), events: RecordingEvents())
        #expect(back.shows == first.published)
        #expect(try Data(contentsOf: URL(fileURLWithPath: setup.dest + "/a.bin")) == Data(Self.files[0].body))
    }

    @Test("a rollback of a destination that is not in generations is refused, naming it as given")
    func rollbackNeedsGenerations() throws {
        let setup = try Setup()
        _ = try Self.pull(setup.request())
        guard case .notInGenerations(setup.dest) = Self.failure({ () throws(PullRunFailure) in
            try PullRun.rollback(dest: setup.dest, reading: false, lockWait: 0, effects: Self.effects(), events: RecordingEvents())
        }) else {
            Issue.record("a plain destination was rolled back")
            return
        }
    }

    @Test("a verification reads every file whatever the state index says, and names the one changed behind its back")
    func verificationFindsAChangedFile() throws {
        let setup = try Setup()
        _ = try Self.pull(setup.request())
        // Same size, other bytes, the modification time put back: only reading finds it.
        let path = setup.dest + "/a.bin"
        let before = try FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as! Date
        try Data("HELLO WORLD".utf8).write(to: URL(fileURLWithPath: path))
        try FileManager.default.setAttributes([.modificationDate: before], ofItemAtPath: path)
        let heard = RecordingEvents()
        let verified = try PullRun(setup.request(), effects: Self.effects()).verify(events: heard)
        // Each verdict is an event, in the manifest's order.
        #expect(heard.lines.map { $0.split(separator: ":")[0] } == Self.files.map { "verified \($0.path)" })
        #expect(heard.lines[0].hasPrefix("verified a.bin: wrongCRC"))
        let verdicts = Dictionary(uniqueKeysWithValues: zip(verified.manifest.entries.map(\.path), verified.verdicts))
        guard case .wrongCRC = verdicts["a.bin"] else {
            Issue.record("the changed file was not found: \(String(describing: verdicts["a.bin"]))")
            return
        }
        #expect(verdicts.values.filter { if case .proven = $0 { true } else { false } }.count == Self.files.count - 1)
        // Repair is a pull that proves every file again.
        var repair = setup.request()
        repair.verifyAll = true
        let repaired = try Self.pull(repair)
        #expect(repaired.outcome.isComplete)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data(Self.files[0].body))
    }

    @Test("a plan names what a pull would fetch and makes nothing, not even the destination")
    func aPlanMakesNothing() throws {
        let setup = try Setup()
        let planned = try PullRun(setup.request(), effects: Self.effects()).plan(events: RecordingEvents())
        #expect(planned.plan.items.map(\.action) == [.new, .new, .new])
        #expect(!FileManager.default.fileExists(atPath: setup.dest))
    }
}
