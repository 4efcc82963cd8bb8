import Foundation
import Testing
import TestSupport

/// `make install`'s steps (`make install-built`, which installs the binary under test without
/// building it) into a temporary tree, `make uninstall`, and the systemd units under `contrib/`.
@Suite struct InstallTests {
    static let make = "/usr/bin/make"
    static let systemdAnalyze = "/usr/bin/systemd-analyze"
    static let units = "share/doc/assetsync/contrib/systemd"

    /// Runs the Makefile's `target` with `variables`, installing the binary under test; records its output on failure.
    @discardableResult
    private static func runMake(_ target: String, _ variables: [String]) throws -> RunResult {
        var environment = ProcessInfo.processInfo.environment
        for name in ["MAKEFLAGS", "MFLAGS", "MAKELEVEL"] { environment[name] = nil }  // when the tests run under `make test`
        let result = try AssetSyncBinary.runTool(
            make, ["--no-print-directory", "-C", AssetSyncBinary.packageRoot.path, target, "RELEASE_BIN=\(AssetSyncBinary.url.path)"] + variables,
            environment: environment)
        #expect(result.status == 0, "make \(target): \(result.stdout)\(result.stderr)")
        return result
    }

    /// Every file below `root`, as paths relative to it.
    private static func files(under root: String) -> [String] {
        let enumerator = FileManager.default.enumerator(atPath: root)
        var files: [String] = []
        while let path = enumerator?.nextObject() as? String {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: root + "/" + path, isDirectory: &isDirectory), !isDirectory.boolValue { files.append(path) }
        }
        return files.sorted()
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: make), "make is not installed"))
    func installPutsEveryFileInItsPlaceAndUninstallRemovesThem() throws {
        let destdir = try TemporaryDirectory()
        try Self.runMake("install-built", ["DESTDIR=\(destdir.path)", "PREFIX=/opt/assets"])
        let prefix = destdir.path + "/opt/assets"
        let expected = [
            "bin/assetsync", "share/bash-completion/completions/assetsync", "\(Self.units)/assetsync-pull.service",
            "\(Self.units)/assetsync-pull.timer", "share/fish/vendor_completions.d/assetsync.fish", "share/man/man1/assetsync.1",
            "share/zsh/site-functions/_assetsync",
        ]
        #expect(Self.files(under: destdir.path) == expected.map { "opt/assets/" + $0 })

        #expect(FileManager.default.isExecutableFile(atPath: prefix + "/bin/assetsync"))
        #expect(FileManager.default.contentsEqual(atPath: prefix + "/bin/assetsync", andPath: AssetSyncBinary.url.path))
        let generated = [
            "share/man/man1/assetsync.1": ["--generate-manual"],
            "share/bash-completion/completions/assetsync": ["--generate-completion-script", "bash"],
            "share/zsh/site-functions/_assetsync": ["--generate-completion-script", "zsh"],
            "share/fish/vendor_completions.d/assetsync.fish": ["--generate-completion-script", "fish"],
        ]
        for (path, arguments) in generated {
            let installed = try String(contentsOfFile: prefix + "/" + path, encoding: .utf8)
            #expect(installed == (try AssetSyncBinary.run(arguments)).stdout, "\(path)")
            let mode = try FileManager.default.attributesOfItem(atPath: prefix + "/" + path)[.posixPermissions] as? Int
            #expect(mode == 0o644, "\(path)")
        }
        let contrib = AssetSyncBinary.packageRoot.path + "/contrib/systemd/"
        let service = try String(contentsOfFile: prefix + "/\(Self.units)/assetsync-pull.service", encoding: .utf8)
        let source = try String(contentsOfFile: contrib + "assetsync-pull.service", encoding: .utf8)
        #expect(service.contains("\nExecStart=/opt/assets/bin/assetsync pull "))
        #expect(service == source.replacing("/usr/local/bin/assetsync", with: "/opt/assets/bin/assetsync"))
        #expect(FileManager.default.contentsEqual(atPath: prefix + "/\(Self.units)/assetsync-pull.timer", andPath: contrib + "assetsync-pull.timer"))

        try Self.runMake("uninstall", ["DESTDIR=\(destdir.path)", "PREFIX=/opt/assets"])
        #expect(Self.files(under: destdir.path) == [])
        #expect(!FileManager.default.fileExists(atPath: prefix + "/share/doc/assetsync"))
    }

    /// The units as installed (with `PREFIX` a temporary tree, so that `ExecStart=` names a binary
    /// that exists) pass `systemd-analyze verify`.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: make), "make is not installed"),
          .enabled(if: FileManager.default.isExecutableFile(atPath: systemdAnalyze), "systemd-analyze is not installed"))
    func installedUnitsPassSystemdAnalyzeVerify() throws {
        let prefix = try TemporaryDirectory()
        try Self.runMake("install-built", ["PREFIX=\(prefix.path)"])
        let units = ["assetsync-pull.service", "assetsync-pull.timer"].map { prefix.path + "/\(Self.units)/" + $0 }
        let verified = try AssetSyncBinary.runTool(Self.systemdAnalyze, ["verify"] + units)
        #expect(verified.status == 0, "\(verified.stdout)\(verified.stderr)")
        #expect(verified.stdout + verified.stderr == "")
    }

    /// docs/scheduling.md shows the units: each shown file is the one under contrib/.
    @Test(arguments: ["assetsync-pull.service", "assetsync-pull.timer"])
    func theSchedulingPageShowsTheContribUnits(_ unit: String) throws {
        let page = try String(contentsOf: AssetSyncBinary.packageRoot.appendingPathComponent("docs/scheduling.md"), encoding: .utf8)
        let heading = try #require(page.range(of: "`/etc/systemd/system/\(unit)`"), "docs/scheduling.md does not show \(unit)")
        let open = try #require(page.range(of: "```ini\n", range: heading.upperBound..<page.endIndex))
        let close = try #require(page.range(of: "```\n", range: open.upperBound..<page.endIndex))
        let contrib = try String(contentsOf: AssetSyncBinary.packageRoot.appendingPathComponent("contrib/systemd/" + unit), encoding: .utf8)
        #expect(String(page[open.upperBound..<close.lowerBound]) == contrib)
    }
}
