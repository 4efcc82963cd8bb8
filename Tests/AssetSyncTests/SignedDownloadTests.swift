import Foundation
import Testing
@testable import AssetSyncModel
import AssetSyncSystem
@testable import AssetSyncTransfer

/// Downloads from moto's S3 server with authentication enforced, through the engine and libcurl:
/// each attempt signed (`TransferOptions.objectStore`), its Range and If-Range too; refused by the
/// server without a signature or with a wrong secret.
@Suite(.serialized, .enabled(if: MotoAuthServer.isInstalled, "needs moto, which `make deps` installs into .build/moto"))
final class SignedDownloadTests {
    private let moto: MotoAuthServer

    init() throws { moto = try MotoAuthServer() }

    /// Pulls the object into `sink` with `access` (nil: unsigned): its result and the retries told.
    func pull(into sink: MemorySink, access: ObjectStoreAccess?, url: String? = nil) -> (result: FileResult?, lines: [String]) {
        var options = TransferOptions()
        options.objectStore = access
        options.retries = 0
        options.retryBaseDelay = 0.01
        let delegate = EngineDelegate(bodies: [:])
        delegate.preparedSink = { _ in sink }
        let entry = ManifestEntry(path: "a b.bin", size: Int64(moto.body.count), crc32: 0)
        let engine = TransferEngine(
            requests: [.init(entry: entry, action: .new, sources: [DownloadSource(url: url ?? moto.store.endpoint + moto.store.object)])],
            options: options, delegate: delegate, wakeFD: -1, shouldStop: { false })
        _ = engine.run()
        return (engine.results.first, delegate.lines)
    }

    @Test func aSignedDownloadGetsTheObject() {
        let sink = MemorySink(expected: moto.body)
        let (result, _) = pull(into: sink, access: moto.access())
        #expect(result?.outcome == .committed)
        #expect(sink.bytes == moto.body)
    }

    @Test func aResumeSignsItsRangeAndIfRange() throws {
        let record = ResumeRecord(url: moto.store.endpoint + moto.store.object, etag: moto.store.etag, lastModified: nil)
        let fields = Dictionary(uniqueKeysWithValues: record.fields.compactMap { field in field.value.map { (field.key, $0) } })
        let sink = MemorySink(expected: moto.body, holding: Array(moto.body[..<40_000]), resumeFields: fields)
        let (result, lines) = pull(into: sink, access: moto.access(temporary: true))
        #expect(result?.outcome == .committed, "\(lines)")
        #expect(result?.transferred == Int64(moto.body.count - 40_000))
        #expect(sink.bytes == moto.body)
    }

    @Test func withoutASignatureTheServerRefuses() {
        let (result, _) = pull(into: MemorySink(expected: moto.body), access: nil)
        guard case .failed(let failure) = result?.outcome else { Issue.record("not refused: \(String(describing: result))"); return }
        // An unsigned request's refusal is not read: its body is the server's, not a store's diagnosis.
        #expect(failure.reason == "HTTP 403", "\(failure.reason)")
    }

    @Test func aWrongSecretIsRefusedByTheServerAndSaidToBeTheSecret() {
        let (result, _) = pull(into: MemorySink(expected: moto.body), access: moto.access(secret: "wrong"))
        guard case .failed(let failure) = result?.outcome else { Issue.record("not refused: \(String(describing: result))"); return }
        #expect(failure.reason.hasPrefix("HTTP 403 SignatureDoesNotMatch: ") && failure.reason.contains("secret access key"), "\(failure.reason)")
    }

    @Test func anUnknownAccessKeyIsSaidToBeTheKey() {
        let access = ObjectStoreAccess(endpoint: moto.store.endpoint, region: "us-east-1", credentials: .init(accessKeyID: "AKIANOSUCHKEY", secretAccessKey: "x"))
        let (result, _) = pull(into: MemorySink(expected: moto.body), access: access)
        guard case .failed(let failure) = result?.outcome else { Issue.record("not refused: \(String(describing: result))"); return }
        #expect(failure.reason.hasPrefix("HTTP 403 InvalidAccessKeyId: "), "\(failure.reason)")
    }

    @Test func anotherOriginIsAskedUnsigned() {
        // The same store under another name for its host: not the endpoint signed for, so no signature, so refused.
        let other = moto.store.endpoint.replacingOccurrences(of: "127.0.0.1", with: "localhost") + moto.store.object
        let (result, _) = pull(into: MemorySink(expected: moto.body), access: moto.access(), url: other)
        guard case .failed(let failure) = result?.outcome else { Issue.record("not refused: \(String(describing: result))"); return }
        #expect(failure.reason.contains("403"), "\(failure.reason)")
    }
}
