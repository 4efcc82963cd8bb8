import CCurl
import Foundation
import Testing
@testable import AssetSyncModel
@testable import AssetSyncSystem
@testable import AssetSyncTransfer
import TestSupport

/// A remote manifest's fetch in process: the same transport seam and decisions as every download,
/// answered by `FakeTransport` (or, for an attempt cut off mid-body, played into a `Download`), into
/// a destination that counts what the fetcher did to it.
@Suite struct ManifestFetcherTests {
    static let url = "http://origin.invalid/manifest.json"
    static let body = Array("{\"version\": 1, \"files\": []}".utf8)

    /// A destination in a temporary directory: attempts at `attempt`, the copy kept at `copy`, and
    /// optionally a copy held from an earlier fetch of `ManifestFetcherTests.url`.
    final class Destination: ManifestDestination {
        let directory: TemporaryDirectory
        var held: CachedManifest?
        private(set) var opened = 0
        private(set) var kept: (url: String, etag: String?, lastModified: String?)?
        var attemptName: String { directory.path + "/attempt" }
        var copy: String { directory.path + "/copy" }

        init(holding contents: String? = nil) throws {
            directory = try TemporaryDirectory()
            if let contents {
                _ = try directory.write("copy", contents)
                held = CachedManifest(path: copy, etag: "\"v0\"", lastModified: "Mon, 30 Nov 2026 10:00:00 GMT")
            }
        }

        func cached(for url: String) -> CachedManifest? { url == ManifestFetcherTests.url ? held : nil }

        func openAttempt() throws(ManifestFetcher.Failure) -> Int32 {
            opened += 1
            let fd = open(attemptName, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
            guard fd >= 0 else { throw ManifestFetcher.Failure(description: "cannot write \(attemptName)") }
            return fd
        }

        func keepAttempt(url: String, etag: String?, lastModified: String?) throws(ManifestFetcher.Failure) -> String {
            kept = (url, etag, lastModified)
            rename(attemptName, copy)
            return copy
        }

        func dropAttempt() { unlink(attemptName) }

        var attemptLeft: Bool { FileManager.default.fileExists(atPath: attemptName) }
        func contents() -> [UInt8]? { FileManager.default.contents(atPath: copy).map(Array.init) }
    }

    static func fetcher(_ responses: [FakeTransport.Response], sizeLimit: Int64 = Manifest.sizeLimit, stop: StopSource = .never)
        -> ManifestFetcher
    {
        var options = TransferOptions()
        options.retries = 2
        options.retryBaseDelay = 0.01
        return ManifestFetcher(options: options, sizeLimit: sizeLimit, stop: stop, transport: FakeTransport(responses: [url: responses]))
    }

    /// The failure `body` throws, or nil.
    static func failure(_ body: () throws(ManifestFetcher.Failure) -> ManifestFetcher.Fetched) -> ManifestFetcher.Failure? {
        do { _ = try body(); return nil } catch { return error }
    }

    @Test("a remote manifest answered 200 is kept with the answer's validators, for the next conditional request")
    func answeredWholeIsKept() throws {
        let destination = try Destination()
        let answer = FakeTransport.Response(
            head: ["HTTP/1.1 200 OK", "ETag: \"v1\"", "Last-Modified: Tue, 01 Dec 2026 10:00:00 GMT"], body: Self.body)
        let fetched = try Self.fetcher([answer]).fetch(Self.url, into: destination)
        #expect(fetched.path == destination.copy && !fetched.notModified)
        #expect(destination.contents() == Self.body)
        #expect(destination.kept?.url == Self.url)
        #expect(destination.kept?.etag == "\"v1\"" && destination.kept?.lastModified == "Tue, 01 Dec 2026 10:00:00 GMT")
    }

    @Test("an empty answer is an empty manifest file, kept like any other")
    func anEmptyAnswerIsKept() throws {
        let destination = try Destination()
        let fetched = try Self.fetcher([.ok([])]).fetch(Self.url, into: destination)
        #expect(fetched.path == destination.copy && destination.contents() == [])
    }

    @Test("a remote manifest answered 304 to its conditional request keeps the cached copy, and no body is written")
    func notModifiedKeepsTheCopy() throws {
        let destination = try Destination(holding: "the copy")
        let fetched = try Self.fetcher([.status(304)]).fetch(Self.url, into: destination)
        #expect(fetched.path == destination.copy && fetched.notModified)
        #expect(destination.opened == 0 && destination.kept == nil)
        #expect(destination.contents() == Array("the copy".utf8))
    }

    @Test("a 304 to a request that was not conditional is not taken for a copy")
    func notModifiedWithoutACopyFails() throws {
        let destination = try Destination()
        let failure = Self.failure { () throws(ManifestFetcher.Failure) in try Self.fetcher([.status(304)]).fetch(Self.url, into: destination) }
        #expect(failure?.description == "unexpected HTTP status 304" && failure?.status == 304)
    }

    @Test("a manifest larger than its limit fails naming the limit, is not asked for again, and leaves no file")
    func largerThanTheLimitFails() throws {
        let destination = try Destination(holding: "the copy")
        let fetcher = Self.fetcher([.ok(Array(repeating: 0x20, count: 17))], sizeLimit: 16)
        let failure = Self.failure { () throws(ManifestFetcher.Failure) in try fetcher.fetch(Self.url, into: destination) }
        #expect(failure?.sizeLimitExceeded == 16)
        #expect(failure?.description == "the answer is larger than the 16 B limit for this file")
        #expect(destination.kept == nil && !destination.attemptLeft)
        #expect(destination.contents() == Array("the copy".utf8))
    }

    @Test("a manifest of exactly its limit is accepted")
    func exactlyTheLimitIsKept() throws {
        let destination = try Destination()
        let fetched = try Self.fetcher([.ok(Array(repeating: 0x20, count: 16))], sizeLimit: 16).fetch(Self.url, into: destination)
        #expect(fetched.path == destination.copy && destination.contents()?.count == 16)
    }

    @Test("a transient status is retried and only the retry's body is kept; a 404 is final and names its status")
    func transientRetriedMissingFinal() throws {
        let destination = try Destination()
        let busy = FakeTransport.Response(head: ["HTTP/1.1 503 Busy"], body: Array("try later".utf8))
        let fetched = try Self.fetcher([busy, .ok(Self.body)]).fetch(Self.url, into: destination)
        #expect(fetched.path == destination.copy && destination.contents() == Self.body)

        let missing = Self.failure { () throws(ManifestFetcher.Failure) in try Self.fetcher([.status(404)]).fetch(Self.url, into: destination) }
        #expect(missing?.description == "HTTP 404" && missing?.status == 404 && missing?.sizeLimitExceeded == nil)
        let exhausted = Self.failure { () throws(ManifestFetcher.Failure) in
            try Self.fetcher([.status(503), .status(503), .status(503)]).fetch(Self.url, into: destination)
        }
        #expect(exhausted?.description == "HTTP 503" && exhausted?.status == 503)
    }

    @Test("a stop before the request ends the fetch as interrupted, and nothing is written")
    func stoppedIsInterrupted() throws {
        let destination = try Destination()
        let stopped = StopSource(wakeFD: -1, isRequested: { true })
        let failure = Self.failure { () throws(ManifestFetcher.Failure) in
            try Self.fetcher([.ok(Self.body)], stop: stopped).fetch(Self.url, into: destination)
        }
        #expect(failure?.description == "interrupted")
        #expect(destination.opened == 0 && destination.kept == nil)
    }

    @Test("an answer cut off mid-body is asked for again whole: its bytes are dropped, not continued")
    func cutOffIsFetchedAgainWhole() throws {
        let destination = try Destination()
        var options = TransferOptions()
        options.retries = 2
        let request = TransferEngine.Request(
            entry: ManifestEntry(path: Self.url, size: 64, crc32: 0), action: .new, sources: [DownloadSource(url: Self.url)],
            kind: .document(held: nil))
        let fetch = ManifestFetch([ManifestFetcher.Document(url: Self.url, sizeLimit: 64, destination: destination)])
        let download = Download(
            entry: request.entry, action: .new, sources: request.sources, kind: request.kind, health: SourceHealth(),
            sink: try fetch.openSink(for: request), options: options, handles: CurlEasyPool(), clock: MonotonicClock.now)
        let cut = download.play(["HTTP/1.1 200 OK", "ETag: \"v1\""], body: Array(Self.body.prefix(5)), code: CURLE_RECV_ERROR)
        #expect(cut.delay != nil && download.sink.offset == 0 && !destination.attemptLeft)
        #expect(download.play(["HTTP/1.1 200 OK", "ETag: \"v2\""], body: Self.body).summary == "proven")
        fetch.proven(download)
        _ = fetch.settleProven(idle: true, force: false)
        #expect(fetch.kept[Self.url]?.path == destination.copy && destination.contents() == Self.body)
        #expect(destination.opened == 2 && destination.kept?.etag == "\"v2\"")
    }
}
