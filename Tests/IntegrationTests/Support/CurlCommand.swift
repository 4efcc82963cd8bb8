import Foundation
import Glibc
import TestSupport

/// What one `/usr/bin/curl` run did: exit status, body, the response heads it saw.
struct CurlResult {
    var status: Int32
    var body: Data
    /// Each response head received, in order (several with `-L` or `100 Continue`), as lines.
    var heads: [[String]]
    var stderr: String
    /// Whether `CurlCommand` killed curl because it outlived its timeout.
    var timedOut: Bool
    var seconds: Double

    /// The last response's status code.
    var httpStatus: Int? {
        heads.last?.first.flatMap { line in line.split(separator: " ").dropFirst().first.flatMap { Int($0) } }
    }

    /// A header of the last response (case-insensitive name).
    func header(_ name: String) -> String? {
        for line in heads.last?.dropFirst() ?? [] {
            guard let colon = line.firstIndex(of: ":") else { continue }
            if line[..<colon].caseInsensitiveCompare(name) == .orderedSame {
                return line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
        }
        return nil
    }
}

/// Runs `/usr/bin/curl` (a Makefile dependency) as the plain client that proves what a test
/// server does: `-sS`, body to a file, response heads to a file, killed after `timeout`.
final class CurlCommand {
    static let path = "/usr/bin/curl"

    private let process = Process()
    private let scratch: TemporaryDirectory
    private let start = ContinuousClock.now

    /// Starts curl with `arguments` (URLs and options; `-o` and `-D` are set here).
    init(_ arguments: [String]) throws {
        scratch = try TemporaryDirectory()
        let stderrURL = scratch.url.appendingPathComponent("stderr")
        _ = FileManager.default.createFile(atPath: stderrURL.path, contents: nil)
        let stderr = try FileHandle(forWritingTo: stderrURL)
        defer { try? stderr.close() }
        process.executableURL = URL(fileURLWithPath: Self.path)
        process.arguments = ["-sS", "-o", scratch.path + "/body", "-D", scratch.path + "/heads"] + arguments
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = stderr
        try process.runWithDefaultSignalMask()
    }

    var pid: Int32 { process.processIdentifier }
    var isRunning: Bool { process.isRunning }

    /// Bytes of body written so far.
    var bodyBytesSoFar: Int {
        ((try? FileManager.default.attributesOfItem(atPath: scratch.path + "/body"))?[.size] as? Int) ?? 0
    }

    func signal(_ signal: Int32) { if process.isRunning { kill(process.processIdentifier, signal) } }

    /// Waits for curl to end (SIGKILL after `timeout` seconds) and collects what it did.
    func wait(timeout: Double = 30) -> CurlResult {
        let left = (start + .seconds(timeout) - ContinuousClock.now) / .seconds(1)
        let timedOut = !waitUntil(timeout: max(0, left), polling: .milliseconds(2)) { !process.isRunning }
        if timedOut { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        let elapsed = ContinuousClock.now - start
        let headText = (try? String(contentsOfFile: scratch.path + "/heads", encoding: .isoLatin1)) ?? ""
        var heads: [[String]] = []
        for block in headText.components(separatedBy: "\r\n\r\n") where !block.isEmpty {
            heads.append(block.components(separatedBy: "\r\n"))
        }
        return CurlResult(
            status: process.terminationStatus,
            body: (try? Data(contentsOf: URL(fileURLWithPath: scratch.path + "/body"))) ?? Data(),
            heads: heads,
            stderr: (try? String(contentsOfFile: scratch.path + "/stderr", encoding: .utf8)) ?? "",
            timedOut: timedOut,
            seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
    }

    /// Runs curl to the end.
    static func run(_ arguments: [String], timeout: Double = 30) throws -> CurlResult {
        try CurlCommand(arguments).wait(timeout: timeout)
    }
}
