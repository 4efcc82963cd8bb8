import Foundation
@testable import AssetSyncCLI
@testable import AssetSyncCache
@testable import AssetSyncManifestIO
@testable import AssetSyncModel
@testable import AssetSyncPull
@testable import AssetSyncSystem
@testable import AssetSyncTransfer
import TestSupport

/// The broken rule as an error message shows it ("problem: value"), or nil when the rule held.
func brokenRule<T>(_ body: () throws(RuleViolation) -> T) -> String? {
    do {
        _ = try body()
        return nil
    } catch {
        return error.problem + (error.value.map { ": " + $0 } ?? "")
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
