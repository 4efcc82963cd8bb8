import Foundation
import Testing
import TestSupport

/// `make demo`'s script, run from a copy of the checkout in a private directory, as a new user's clone in
/// root's home or in `mktemp -d` is.
@Suite struct DemoTests {
    @Test("the demo pulls every file from a checkout under a 0700 directory")
    func demoRunsInAPrivateDirectory() throws {
        let checkout = try TemporaryDirectory()
        #expect(chmod(checkout.path, 0o700) == 0)
        for script in ["demo/run.sh", "bench/lib.sh"] {  // the demo and the library it sources
            let copy = checkout.url.appendingPathComponent(script)
            try FileManager.default.createDirectory(at: copy.deletingLastPathComponent(), withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: AssetSyncBinary.packageRoot.appendingPathComponent(script), to: copy)
        }
        let log = checkout.url.appendingPathComponent("demo.log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let output = try FileHandle(forWritingTo: log)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [checkout.path + "/demo/run.sh", AssetSyncBinary.url.path]
        var environment = ProcessInfo.processInfo.environment
        environment["DEMO_UNIT"] = "4096"  // the same files, 4 KiB per MiB: about 4 MiB in all
        process.environment = environment
        process.standardOutput = output
        process.standardError = output
        process.standardInput = FileHandle.nullDevice
        try process.run()
        if !waitUntil(timeout: 120, { !process.isRunning }) { process.terminate() }
        process.waitUntilExit()
        try output.close()
        let text = try String(contentsOf: log, encoding: .utf8)
        #expect(process.terminationStatus == 0, "demo/run.sh failed:\n\(text)")
        #expect(text.contains("demo-cache holds 7 verified files"), "\(text)")
        #expect(!text.contains("HTTP 403"), "\(text)")
    }
}
