import Foundation
@testable import AssetSyncModel

/// moto's S3 server with authentication enforced, run by `Fixtures/s3_auth_server.py` with the
/// Python of `make deps`'s `.build/moto` for as long as this object lives: an IAM user's key, a
/// role's temporary credential, and one object of 64 KiB in bucket `assets`.
final class MotoAuthServer {
    struct Store: Decodable {
        struct Temporary: Decodable {
            var key: String
            var secret: String
            var token: String
        }

        var endpoint: String
        var key: String
        var secret: String
        var temporary: Temporary
        /// The object's path on the endpoint, percent-encoded: `/assets/dir/a%20b.bin`.
        var object: String
        var etag: String
        var body: String
    }

    static let python = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent(".build/moto/bin/python").path
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")
    static let isInstalled = FileManager.default.isExecutableFile(atPath: python)

    private let server = Process()
    private let input = Pipe()
    let store: Store

    init() throws {
        server.executableURL = URL(fileURLWithPath: Self.python)
        server.arguments = [Self.fixtures.appendingPathComponent("s3_auth_server.py").path]
        let output = Pipe()
        server.standardInput = input
        server.standardOutput = output
        server.standardError = FileHandle.nullDevice
        try server.run()
        var line = Data()
        while let byte = try output.fileHandleForReading.read(upToCount: 1), !byte.isEmpty, byte != Data("\n".utf8) { line += byte }
        store = try JSONDecoder().decode(Store.self, from: line)
    }

    deinit {
        try? input.fileHandleForWriting.close()
        server.waitUntilExit()
    }

    /// The object's bytes.
    var body: [UInt8] {
        let hex = Array(store.body.utf8)
        return stride(from: 0, to: hex.count, by: 2).map { UInt8(String(decoding: hex[$0..<$0 + 2], as: UTF8.self), radix: 16)! }
    }

    /// The user's key, or the role's temporary one (its session token left out with `withoutToken`).
    func access(secret: String? = nil, temporary: Bool = false, withoutToken: Bool = false) -> ObjectStoreAccess {
        let credentials = temporary
            ? AWSCredentials(accessKeyID: store.temporary.key, secretAccessKey: secret ?? store.temporary.secret,
                             sessionToken: withoutToken ? nil : store.temporary.token)
            : AWSCredentials(accessKeyID: store.key, secretAccessKey: secret ?? store.secret)
        return ObjectStoreAccess(endpoint: store.endpoint, region: "us-east-1", credentials: credentials)
    }
}
