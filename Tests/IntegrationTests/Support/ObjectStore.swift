import Foundation
import Glibc
import TestSupport

/// An S3-compatible object store on loopback: moto's server mode (from PyPI, installed by
/// `make deps` into `.build/moto`), with an nginx in front that forwards every request unchanged
/// and logs it in the harness format, so that a test sees the request target and the Range and
/// If-Range headers exactly as assetsync sent them. Objects are put with boto3
/// (`Fixtures/s3_fixture.py`) and fetched through presigned GET URLs addressed to the nginx, or,
/// with authentication enforced, through requests signed with the key of an IAM user the store
/// makes (`credentials`).
final class ObjectStore {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// An uploaded object: its ETag as S3 reports it and a presigned URL for it.
    struct Object: Decodable {
        var etag: String
        var url: String
    }

    /// An IAM user's access key, which a store with authentication enforced checks every request against.
    struct Credentials: Decodable {
        var key: String
        var secret: String
    }

    static let bucket = "assets"

    /// The moto virtual environment: `ASSETSYNC_MOTO_VENV`, else `.build/moto` in the package.
    static let environment: URL = {
        if let override = ProcessInfo.processInfo.environment["ASSETSYNC_MOTO_VENV"] { return URL(fileURLWithPath: override) }
        return AssetSyncBinary.packageRoot.appendingPathComponent(".build/moto")
    }()

    /// Whether moto is installed; the tests are skipped without it.
    static var isInstalled: Bool {
        FileManager.default.isExecutableFile(atPath: environment.appendingPathComponent("bin/moto_server").path)
    }

    private static let fixture = AssetSyncBinary.packageRoot.appendingPathComponent("Tests/IntegrationTests/Fixtures/s3_fixture.py")

    let front: NginxServer
    /// The key every request must be signed with; nil when the store checks no signature.
    private(set) var credentials: Credentials?
    private let moto: Process
    private let motoPort: UInt16
    private let scratch: TemporaryDirectory

    /// The store as a client reaches it: the logging nginx, as an S3 endpoint URL.
    var endpoint: String { String(front.baseURL.dropLast()) }

    /// With `authenticated`, moto checks every request's signature once the IAM user is made;
    /// `withoutAttributes`, the nginx answers GetObjectAttributes 501, as a store without it does.
    init(authenticated: Bool = false, withoutAttributes: Bool = false) throws {
        scratch = try TemporaryDirectory()
        motoPort = try LoopbackSocket.freePort()
        moto = Process()
        moto.executableURL = Self.environment.appendingPathComponent("bin/moto_server")
        moto.arguments = ["-H", "127.0.0.1", "-p", "\(motoPort)"]
        if authenticated {
            moto.environment = ProcessInfo.processInfo.environment.merging(["INITIAL_NO_AUTH_ACTION_COUNT": "10"]) { $1 }
        }
        let log = scratch.url.appendingPathComponent("moto.log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let output = try FileHandle(forWritingTo: log)
        defer { try? output.close() }
        moto.standardOutput = output
        moto.standardError = output
        moto.standardInput = FileHandle.nullDevice
        try moto.runWithDefaultSignalMask()
        let port = motoPort
        guard waitUntil(timeout: 60, { LoopbackSocket.canConnect(port: port) }) else {
            moto.terminate()
            moto.waitUntilExit()
            throw Failure(description: "moto did not listen within 60 s: " + ((try? String(contentsOf: log, encoding: .utf8)) ?? ""))
        }
        do {
            front = try NginxServer(root: scratch.url, extraConfig: """
                location /\(Self.bucket)/ {
                    \(withoutAttributes ? "if ($args ~ \"^attributes\") { return 501; }" : "")
                    proxy_pass http://127.0.0.1:\(motoPort);
                    proxy_set_header Host $http_host;
                    proxy_http_version 1.1;
                    proxy_buffering off;
                }
                # The bucket itself (a listing), which the location above would redirect to "/assets/".
                location = /\(Self.bucket) {
                    proxy_pass http://127.0.0.1:\(motoPort);
                    proxy_set_header Host $http_host;
                    proxy_http_version 1.1;
                    proxy_buffering off;
                }
                """)
            if authenticated { credentials = try JSONDecoder().decode(Credentials.self, from: try fixture(["auth"], for: "auth")) }
        } catch {
            moto.terminate()
            moto.waitUntilExit()
            throw error
        }
    }

    deinit { stop() }

    func stop() {
        if moto.isRunning {
            moto.terminate()
            moto.waitUntilExit()
        }
    }

    /// What the store keeps of an object's checksum: what boto3 sends by default, its CRC-32 (for a
    /// multipart upload, a checksum of its parts' CRC-32s), or none.
    enum StoredChecksum: String {
        case boto3Default = ""
        case crc32
        case none
    }

    /// Uploads `data` as `key` (multipart in parts of `partSize` when given) and presigns a GET for it.
    func put(_ key: String, _ data: Data, partSize: Int? = nil, checksum: StoredChecksum = .boto3Default) throws -> Object {
        let file = try scratch.write("upload", data)
        let command = ["put", key, file] + (partSize.map { ["\($0)"] } ?? [])
        return try JSONDecoder().decode(Object.self, from: try fixture(command, for: "put \(key)", checksum: checksum))
    }

    /// Puts `count` small objects `PREFIXnnnnn.txt`, each holding its own key.
    func putMany(prefix: String, count: Int) throws {
        _ = try fixture(["put-many", prefix, "\(count)"], for: "put-many \(prefix)")
    }

    /// What `s3_fixture.py` prints for `command`, signing with `credentials` when there are.
    private func fixture(_ command: [String], for what: String, checksum: StoredChecksum = .boto3Default) throws -> Data {
        let process = Process()
        process.executableURL = Self.environment.appendingPathComponent("bin/python")
        process.arguments = [Self.fixture.path, "http://127.0.0.1:\(motoPort)", endpoint, Self.bucket] + command
        var variables = ["S3_FIXTURE_CHECKSUM": checksum.rawValue]
        if let credentials { variables.merge(["S3_FIXTURE_KEY": credentials.key, "S3_FIXTURE_SECRET": credentials.secret]) { $1 } }
        process.environment = ProcessInfo.processInfo.environment.merging(variables) { $1 }
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.runWithDefaultSignalMask()
        let answer = out.fileHandleForReading.readDataToEndOfFile()
        let problem = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw Failure(description: "s3_fixture.py \(what) failed: " + String(decoding: problem, as: UTF8.self))
        }
        return answer
    }

    /// A presigned URL's request target (path and query) as a client must send it.
    static func target(of url: String) -> String {
        let afterScheme = url.dropFirst("http://".count)
        return String(afterScheme[(afterScheme.firstIndex(of: "/") ?? afterScheme.endIndex)...])
    }
}
