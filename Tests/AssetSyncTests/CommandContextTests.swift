import Foundation
import Glibc
import AssetSyncModel
import Testing
@testable import AssetSyncCLI
@testable import AssetSyncSystem
import TestSupport

/// Commands run in a context a test builds: standard input, output, the environment and the
/// stop request come from it, not from the process.
@Suite struct CommandContextTests {
    /// A context whose stdout and stderr are files of `directory`, read back with `output()` and `errors()`.
    private struct Captured {
        let directory: TemporaryDirectory
        let context: CommandContext

        init(input: Int32 = -1, environment: [String: String] = [:], stop: StopSource = .never) throws {
            directory = try TemporaryDirectory()
            let out = open(directory.path + "/stdout", O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
            let err = open(directory.path + "/stderr", O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
            try #require(out >= 0 && err >= 0)
            context = CommandContext(
                console: Console(output: out, errors: err), input: input, environment: environment, stop: stop)
        }

        func output() throws -> String { try String(contentsOfFile: directory.path + "/stdout", encoding: .utf8) }
        func errors() throws -> String { try String(contentsOfFile: directory.path + "/stderr", encoding: .utf8) }

        func close() {
            Glibc.close(context.console.output)
            Glibc.close(context.console.errors)
        }
    }

    @Test func planReadsTheManifestFromTheContextsInput() throws {
        let manifest = open(packageRoot.appendingPathComponent("manifests/example.xml").path, O_RDONLY | O_CLOEXEC)
        try #require(manifest >= 0)
        defer { close(manifest) }
        let captured = try Captured(input: manifest)
        defer { captured.close() }
        let cache = try TemporaryDirectory()
        #expect(CommandLineTool.run(["plan", "-", "--dest", cache.path], context: captured.context) == .success)
        #expect(try captured.output().contains("videos/intro.mp4"))
    }

    @Test func tuningVariablesComeFromTheContextsEnvironment() throws {
        let captured = try Captured(environment: ["ASSETSYNC_RETRY_DELAY": "soon"])
        defer { captured.close() }
        let manifest = packageRoot.appendingPathComponent("manifests/example.xml").path
        #expect(CommandLineTool.run(["plan", manifest], context: captured.context) == .invalidInput)
        #expect(try captured.errors().hasPrefix("Error: the environment variable ASSETSYNC_RETRY_DELAY must be "))
    }

    @Test func aStopRequestedInTheContextInterruptsThePull() throws {
        let captured = try Captured(stop: StopSource(wakeFD: -1, isRequested: { true }))
        defer { captured.close() }
        let cache = try TemporaryDirectory()
        let manifest = packageRoot.appendingPathComponent("manifests/example.xml").path
        let status = CommandLineTool.run(["pull", manifest, "--dest", cache.path, "--splay", "3600"], context: captured.context)
        #expect(status == .interrupted)
    }
}
