import Foundation
@testable import AssetSyncCLI
@testable import AssetSyncCache
@testable import AssetSyncManifestIO
@testable import AssetSyncModel
@testable import AssetSyncPull
@testable import AssetSyncSystem
@testable import AssetSyncTransfer

/// The broken rule as an error message shows it ("problem: value"), or nil when the rule held.
func brokenRule<T>(_ body: () throws(RuleViolation) -> T) -> String? {
    do {
        _ = try body()
        return nil
    } catch {
        return error.problem + (error.value.map { ": " + $0 } ?? "")
    }
}

/// A fresh directory under the system's temporary directory, removed when released.
final class TemporaryDirectory {
    let url: URL

    init() throws {
        var template = Array((URL(fileURLWithPath: NSTemporaryDirectory()).standardizedFileURL.path + "/assetsync-unit-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { throw CocoaError(.fileWriteUnknown) }
        url = URL(fileURLWithPath: String(cString: made))
    }

    var path: String { url.path }

    /// Writes `contents` at `relative` (creating directories) and returns its full path.
    @discardableResult
    func write(_ relative: String, _ contents: some DataProtocol) throws -> String {
        let file = url.appendingPathComponent(relative)
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(contents).write(to: file)
        return file.path
    }

    @discardableResult
    func write(_ relative: String, _ text: String) throws -> String { try write(relative, Data(text.utf8)) }

    deinit {
        _ = try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: url.path)
        try? FileManager.default.removeItem(at: url)
    }
}

/// Reads a manifest held in a string, as if from a file named `name`.
func readManifest(_ text: String, name: String = "m") throws(ManifestError) -> Manifest {
    let directory = try! TemporaryDirectory()
    let path = try! directory.write(name, text)
    return try ManifestReader.read(path: path)
}

/// The error a manifest held in a string is refused with, without the temporary path.
func manifestError(_ text: String) -> String? {
    let directory = try! TemporaryDirectory()
    let path = try! directory.write("m", text)
    do {
        _ = try ManifestReader.read(path: path)
        return nil
    } catch {
        var error = error
        error.manifest = "m"
        return error.description
    }
}

/// The repository's root, for the example manifests.
let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
