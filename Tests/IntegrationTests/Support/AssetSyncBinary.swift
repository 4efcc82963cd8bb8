import CZlib
import Foundation
import Testing
import TestSupport

/// What one run of the built `assetsync` binary did.
struct RunResult {
    /// The exit status, or the number of the signal that killed the process (see `signal`).
    var status: Int32
    var stdout: String
    var stderr: String
    /// The signal that killed the process, nil when it exited: `status` alone cannot tell a crash by
    /// SIGILL (4) from exit status 4.
    var signal: Int32? = nil
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
        let running = try start(arguments, stdin: stdin, directory: directory, environment: environment, prefix: prefix)
        return try running.wait()
    }

    /// Starts the binary and returns at once, for tests that signal or kill it mid-run. Its stdout
    /// goes to `standardOutput` when given (then `RunResult.stdout` is empty).
    static func start(
        _ arguments: [String], stdin: Data? = nil, directory: URL? = nil,
        environment: [String: String]? = nil, prefix: [String] = [], standardOutput: FileHandle? = nil
    ) throws -> RunningAssetSync {
        let executable = prefix.isEmpty ? url : URL(fileURLWithPath: prefix[0])
        let fullArguments = prefix.isEmpty ? arguments : Array(prefix.dropFirst()) + [url.path] + arguments
        return try launch(
            executable, fullArguments, stdin: stdin, directory: directory, environment: environment, standardOutput: standardOutput)
    }

    /// Runs another program (a shell, groff, make) to its end the same way, for tests of what
    /// assetsync generates and installs.
    static func runTool(_ path: String, _ arguments: [String], directory: URL? = nil, environment: [String: String]? = nil) throws -> RunResult {
        try launch(URL(fileURLWithPath: path), arguments, stdin: nil, directory: directory, environment: environment, standardOutput: nil).wait()
    }

    private static func launch(
        _ executable: URL, _ arguments: [String], stdin: Data?, directory: URL?, environment: [String: String]?, standardOutput: FileHandle?
    ) throws -> RunningAssetSync {
        let scratch = try TemporaryDirectory()
        let outURL = scratch.url.appendingPathComponent("stdout")
        let errURL = scratch.url.appendingPathComponent("stderr")
        for file in [outURL, errURL] where !FileManager.default.createFile(atPath: file.path, contents: nil) {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: file.path])
        }
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = directory }
        process.environment = environment ?? ProcessInfo.processInfo.environment
        let out = try FileHandle(forWritingTo: outURL)
        let err = try FileHandle(forWritingTo: errURL)
        process.standardOutput = standardOutput ?? out
        process.standardError = err
        let input = Pipe()
        process.standardInput = stdin == nil ? FileHandle.nullDevice : input
        try process.runWithDefaultSignalMask()
        if let stdin {
            try input.fileHandleForWriting.write(contentsOf: stdin)
            try input.fileHandleForWriting.close()
        }
        return RunningAssetSync(process: process, scratch: scratch, out: out, err: err)
    }
}

/// A started `assetsync` process.
final class RunningAssetSync {
    let process: Process
    private let scratch: TemporaryDirectory
    private let out: FileHandle
    private let err: FileHandle

    init(process: Process, scratch: TemporaryDirectory, out: FileHandle, err: FileHandle) {
        self.process = process
        self.scratch = scratch
        self.out = out
        self.err = err
    }

    var pid: Int32 { process.processIdentifier }

    /// What it has written to stderr so far.
    var stderrSoFar: String {
        (try? String(contentsOf: scratch.url.appendingPathComponent("stderr"), encoding: .utf8)) ?? ""
    }

    func signal(_ number: Int32) { kill(process.processIdentifier, number) }

    /// Waits until it has `path` open (as `/proc/PID/fd` shows); false after `timeout` seconds.
    func waitUntilOpen(_ path: String, timeout: Double = 30) -> Bool {
        let fds = "/proc/\(pid)/fd"
        return waitUntil(timeout: timeout) {
            ((try? FileManager.default.contentsOfDirectory(atPath: fds)) ?? []).contains {
                (try? FileManager.default.destinationOfSymbolicLink(atPath: fds + "/" + $0)) == path
            }
        }
    }

    /// Waits until it has a handler for `signal` (its bit in `SigCgt` of `/proc/PID/status`); false after
    /// `timeout` seconds.
    func waitUntilCatching(_ signal: Int32, timeout: Double = 30) -> Bool {
        waitUntil(timeout: timeout) {
            let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
            let caught = status.split(separator: "\n").first { $0.hasPrefix("SigCgt:") }
                .flatMap { UInt64($0.dropFirst("SigCgt:".count).trimmingCharacters(in: .whitespaces), radix: 16) } ?? 0
            return caught & (1 << UInt64(signal - 1)) != 0
        }
    }

    /// Waits until a `.part` file in `dest`'s partial directory holds `bytes` or more; records an
    /// issue (with the run's stderr so far) and returns false when none does within `timeout` seconds.
    @discardableResult
    func waitForPartial(in dest: String, bytes: Int, timeout: Double = 30) -> Bool {
        let directory = dest + "/.assetsync/partial"
        let reached = waitUntil(timeout: timeout) {
            ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).contains { name in
                name.hasSuffix(".part")
                    && ((try? FileManager.default.attributesOfItem(atPath: directory + "/" + name)[.size] as? Int) ?? 0) >= bytes
            }
        }
        if !reached { Issue.record("no partial reached \(bytes) bytes: \(stderrSoFar)") }
        return reached
    }

    /// Waits for it to exit (killing it after `timeout` seconds) and returns what it did.
    func wait(timeout: Double = 120) throws -> RunResult {
        if !waitUntil(timeout: timeout, { !process.isRunning }) { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        try out.close()
        try err.close()
        return RunResult(
            status: process.terminationStatus,
            stdout: try String(contentsOf: scratch.url.appendingPathComponent("stdout"), encoding: .utf8),
            stderr: try String(contentsOf: scratch.url.appendingPathComponent("stderr"), encoding: .utf8),
            signal: process.terminationReason == .uncaughtSignal ? process.terminationStatus : nil)
    }
}

/// Writes JSON manifests for tests.
enum TestManifest {
    struct File {
        var path: String
        var size: Int
        var crc32: String
        var url: String?
        var mirrors: [String] = []
        var sha256: String?
        /// The entry's chunk list as a manifest writes it; nil for none.
        var chunks: String?
    }

    /// Writes a manifest of `files` (with `base` and the mirror bases `mirrors`) into `directory` and returns its path.
    static func write(
        _ files: [File], base: String? = nil, mirrors: [String] = [], in directory: TemporaryDirectory, name: String = "manifest.json"
    ) throws -> String {
        var entries: [[String: Any]] = []
        for file in files {
            var entry: [String: Any] = ["path": file.path, "size": file.size, "crc32": file.crc32]
            if let url = file.url { entry["url"] = url }
            if !file.mirrors.isEmpty { entry["mirrors"] = file.mirrors }
            if let sha256 = file.sha256 { entry["sha256"] = sha256 }
            if let chunks = file.chunks { entry["chunks"] = chunks }
            entries.append(entry)
        }
        var manifest: [String: Any] = ["version": 1, "files": entries]
        if let base { manifest["base"] = base }
        if !mirrors.isEmpty { manifest["mirrors"] = mirrors }
        let path = directory.path + "/" + name
        try JSONSerialization.data(withJSONObject: manifest, options: [.sortedKeys]).write(to: URL(fileURLWithPath: path))
        return path
    }

    /// The CRC-32 of `data` as a manifest writes it.
    static func crc32Hex(_ data: Data) -> String {
        let value = data.withUnsafeBytes { bytes in
            UInt32(CZlib.crc32(0, bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), uInt(bytes.count)))
        }
        return String(format: "%08x", value)
    }
}
