import Foundation

/// What one run of the built `assetsync` binary did.
struct RunResult {
    var status: Int32
    var stdout: String
    var stderr: String
}

/// Runs the `assetsync` binary that `swift build` put beside this test bundle.
enum AssetSyncBinary {
    static let url: URL = {
        if let override = ProcessInfo.processInfo.environment["ASSETSYNC_BIN"] {
            return URL(fileURLWithPath: override)
        }
        let selfPath = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        return URL(fileURLWithPath: selfPath).deletingLastPathComponent().appendingPathComponent("assetsync")
    }()

    /// The package's root directory, for fixtures under `manifests/`.
    static let packageRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func run(
        _ arguments: [String], stdin: Data? = nil, directory: URL? = nil,
        environment: [String: String]? = nil, prefix: [String] = []
    ) throws -> RunResult {
        let scratch = try TemporaryDirectory()
        let outURL = scratch.url.appendingPathComponent("stdout")
        let errURL = scratch.url.appendingPathComponent("stderr")
        FileManager.default.createFile(atPath: outURL.path, contents: nil)
        FileManager.default.createFile(atPath: errURL.path, contents: nil)
        let process = Process()
        if prefix.isEmpty {
            process.executableURL = url
            process.arguments = arguments
        } else {
            process.executableURL = URL(fileURLWithPath: prefix[0])
            process.arguments = Array(prefix.dropFirst()) + [url.path] + arguments
        }
        if let directory { process.currentDirectoryURL = directory }
        if let environment { process.environment = environment }
        let out = try FileHandle(forWritingTo: outURL)
        let err = try FileHandle(forWritingTo: errURL)
        process.standardOutput = out
        process.standardError = err
        let input = Pipe()
        process.standardInput = stdin == nil ? FileHandle.nullDevice : input
        try process.run()
        if let stdin {
            try input.fileHandleForWriting.write(contentsOf: stdin)
            try input.fileHandleForWriting.close()
        }
        process.waitUntilExit()
        try out.close()
        try err.close()
        return RunResult(
            status: process.terminationStatus,
            stdout: try String(contentsOf: outURL, encoding: .utf8),
            stderr: try String(contentsOf: errURL, encoding: .utf8))
    }
}

/// A fresh directory under the system's temporary directory, removed when released.
final class TemporaryDirectory {
    let url: URL

    init() throws {
        var template = Array((URL(fileURLWithPath: NSTemporaryDirectory()).standardizedFileURL.path + "/assetsync-test-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { throw CocoaError(.fileWriteUnknown) }
        url = URL(fileURLWithPath: String(cString: made))
    }

    var path: String { url.path }

    deinit { try? FileManager.default.removeItem(at: url) }
}
