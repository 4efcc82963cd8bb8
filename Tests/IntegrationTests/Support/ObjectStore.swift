import Foundation
import Glibc
import TestSupport

/// An S3-compatible object store on loopback: moto's server mode (from PyPI, installed by
/// `make deps` into `.build/moto`), with an nginx in front that forwards every request unchanged
/// and logs it in the harness format, so that a test sees the request target and the Range and
/// If-Range headers exactly as assetsync sent them. Objects are put with boto3
/// (`Fixtures/s3_fixture.py`) and fetched through presigned GET URLs addressed to the nginx.
final class ObjectStore {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// An uploaded object: its ETag as S3 reports it and a presigned URL for it.
    struct Object: Decodable {
        var etag: String
        var url: String
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
    private let moto: Process
    private let motoPort: UInt16
    private let scratch: TemporaryDirectory

    init() throws {
        scratch = try TemporaryDirectory()
        motoPort = try LoopbackSocket.freePort()
        moto = Process()
        moto.executableURL = Self.environment.appendingPathComponent("bin/moto_server")
        moto.arguments = ["-H", "127.0.0.1", "-p", "\(motoPort)"]
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
                    proxy_pass http://127.0.0.1:\(motoPort);
                    proxy_set_header Host $http_host;
                    proxy_http_version 1.1;
                    proxy_buffering off;
                }
                """)
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

    /// Uploads `data` as `key` (multipart in parts of `partSize` when given) and presigns a GET for it.
    func put(_ key: String, _ data: Data, partSize: Int? = nil) throws -> Object {
        let file = try scratch.write("upload", data)
        let process = Process()
        process.executableURL = Self.environment.appendingPathComponent("bin/python")
        process.arguments = [Self.fixture.path, "http://127.0.0.1:\(motoPort)", front.baseURL.dropLast().description, Self.bucket, "put", key, file]
            + (partSize.map { ["\($0)"] } ?? [])
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.runWithDefaultSignalMask()
        let answer = out.fileHandleForReading.readDataToEndOfFile()
        let problem = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw Failure(description: "s3_fixture.py put \(key) failed: " + String(decoding: problem, as: UTF8.self))
        }
        return try JSONDecoder().decode(Object.self, from: answer)
    }

    /// A presigned URL's request target (path and query) as a client must send it.
    static func target(of url: String) -> String {
        let afterScheme = url.dropFirst("http://".count)
        return String(afterScheme[(afterScheme.firstIndex(of: "/") ?? afterScheme.endIndex)...])
    }
}
