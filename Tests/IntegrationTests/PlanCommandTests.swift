import Foundation
import Testing
import TestSupport

/// `assetsync plan` as a user runs it: output, usage errors and exit codes.
@Suite struct PlanCommandTests {
    @Test func plansTheExampleAgainstAPartlyFilledCache() throws {
        let dest = try TemporaryDirectory()
        let videos = dest.url.appendingPathComponent("videos")
        try FileManager.default.createDirectory(at: videos, withIntermediateDirectories: true)
        try Data(count: 100).write(to: videos.appendingPathComponent("intro.mp4"))
        try FileManager.default.createDirectory(at: dest.url.appendingPathComponent("packs"), withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: dest.path + "/packs/level1.zip", contents: nil)
        truncate(dest.path + "/packs/level1.zip", 104_857_600)
        try Data("x".utf8).write(to: dest.url.appendingPathComponent("stray.txt"))

        let result = try AssetSyncBinary.run(
            ["plan", "manifests/example.xml", "--dest", dest.path], directory: AssetSyncBinary.packageRoot)
        #expect(result.status == 0)
        #expect(result.stderr == "")
        #expect(result.stdout == """
            ACTION   SIZE        PATH
            changed  700.0 MiB   videos/intro.mp4  (cache has 100 B)
            check    100.0 MiB   packs/level1.zip
            new      50.0 MiB    packs/level2.zip
            new      4.0 KiB     config/settings v2.json
            extra    1 B         stray.txt

            4 files in the manifest: 2 new, 1 changed, 1 to check; 1 extra in the cache (pull --delete would remove them).
            To download: 750.0 MiB (786436096 bytes), plus up to 100.0 MiB if files to check fail their CRC.

            """)
        let json = try AssetSyncBinary.run(
            ["plan", "manifests/example.json", "--dest=\(dest.path)", "--json"], directory: AssetSyncBinary.packageRoot)
        #expect(json.status == 0)
        #expect(json.stdout.split(separator: "\n").last
            == #"{"type":"summary","files":4,"new":2,"changed":1,"check":1,"current":0,"extra":1,"bytes_to_download":786436096,"bytes_to_check":104857600,"bytes_reusable":0}"#)
    }

    @Test func defaultsToTheCurrentDirectoryAndReadsStandardInput() throws {
        let dest = try TemporaryDirectory()
        let manifest = try Data(contentsOf: AssetSyncBinary.packageRoot.appendingPathComponent("manifests/example.json"))
        let result = try AssetSyncBinary.run(["plan", "-", "--json"], stdin: manifest, directory: dest.url)
        #expect(result.status == 0)
        #expect(result.stdout.hasSuffix(#""new":4,"changed":0,"check":0,"current":0,"extra":0,"bytes_to_download":891293696,"bytes_to_check":0,"bytes_reusable":0}"# + "\n"))
    }

    /// Whether a run can drop to `nobody`: as root, with setpriv. (Root reads any directory, so only
    /// another user is stopped by one without permissions.)
    static var canRunAsNobody: Bool {
        getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv")
    }

    // Needs root and setpriv to run the binary as another user, for whom the directory is unreadable.
    @Test(.enabled(if: canRunAsNobody, "needs root and /usr/bin/setpriv to run as nobody"))
    func unreadableDirectoryIsALocalIOFailure() throws {
        let dest = try TemporaryDirectory()
        chmod(dest.path, 0o755)
        let manifest = dest.path + "/m.json"
        try Data(contentsOf: AssetSyncBinary.packageRoot.appendingPathComponent("manifests/example.json"))
            .write(to: URL(fileURLWithPath: manifest))
        let cache = dest.path + "/cache"
        try FileManager.default.createDirectory(atPath: cache + "/locked", withIntermediateDirectories: true)
        chmod(cache, 0o755)
        chmod(cache + "/locked", 0)
        let result = try AssetSyncBinary.run(
            ["plan", manifest, "--dest", cache],
            prefix: ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"])
        #expect(result.status == 3)
        #expect(result.stderr == "Error: cannot scan the cache directory: open '\(cache)/locked': Permission denied. Check its permissions, or run as its owner.\n")
    }

    @Test(arguments: [
        (["plan"], "Error: Missing expected argument '<manifest>'\nUsage: assetsync plan <manifest> [--dest <dir>] [--json] [--reuse-from <dir> ...] [--header <header> ...] [--netrc] [--auth-host <host> ...] [--cacert <file>] [--proxy <url>] [--speed-limit <rate>] [--speed-time <seconds>] [--endpoint-url <url>] [--region <region>] [--profile <name>] [--addressing-style auto|path|virtual] [--trusted-key <file> ...]\n  See 'assetsync plan --help' for more information.\n"),
        (["plan", "m.xml", "--dets", "x"], "Error: Unknown option '--dets'\nUsage: assetsync plan <manifest> [--dest <dir>] [--json] [--reuse-from <dir> ...] [--header <header> ...] [--netrc] [--auth-host <host> ...] [--cacert <file>] [--proxy <url>] [--speed-limit <rate>] [--speed-time <seconds>] [--endpoint-url <url>] [--region <region>] [--profile <name>] [--addressing-style auto|path|virtual] [--trusted-key <file> ...]\n  See 'assetsync plan --help' for more information.\n"),
        (["plan", "m.xml", "--dest"], "Error: Missing value for '--dest <dir>'\nUsage: assetsync plan <manifest> [--dest <dir>] [--json] [--reuse-from <dir> ...] [--header <header> ...] [--netrc] [--auth-host <host> ...] [--cacert <file>] [--proxy <url>] [--speed-limit <rate>] [--speed-time <seconds>] [--endpoint-url <url>] [--region <region>] [--profile <name>] [--addressing-style auto|path|virtual] [--trusted-key <file> ...]\n  See 'assetsync plan --help' for more information.\n"),
        (["plan", "m.xml", "n.xml"], "Error: Unexpected argument 'n.xml'\nUsage: assetsync plan <manifest> [--dest <dir>] [--json] [--reuse-from <dir> ...] [--header <header> ...] [--netrc] [--auth-host <host> ...] [--cacert <file>] [--proxy <url>] [--speed-limit <rate>] [--speed-time <seconds>] [--endpoint-url <url>] [--region <region>] [--profile <name>] [--addressing-style auto|path|virtual] [--trusted-key <file> ...]\n  See 'assetsync plan --help' for more information.\n"),
        (["plan", "m.xml", "--json=yes"], "Error: '--json' does not take a value\nUsage: assetsync plan <manifest> [--dest <dir>] [--json] [--reuse-from <dir> ...] [--header <header> ...] [--netrc] [--auth-host <host> ...] [--cacert <file>] [--proxy <url>] [--speed-limit <rate>] [--speed-time <seconds>] [--endpoint-url <url>] [--region <region>] [--profile <name>] [--addressing-style auto|path|virtual] [--trusted-key <file> ...]\n  See 'assetsync plan --help' for more information.\n"),
        (["pul", "m.xml"], "Error: Unknown subcommand 'pul'\nUsage: assetsync <subcommand>\n  See 'assetsync --help' for more information.\n"),
        (["--verbose"], "Error: Unknown option '--verbose'\nUsage: assetsync <subcommand>\n  See 'assetsync --help' for more information.\n"),
        (["help", "nope"], "Error: Unknown subcommand 'nope'\nUsage: assetsync <subcommand>\n  See 'assetsync --help' for more information.\n"),
    ])
    func usageErrors(_ arguments: [String], _ expected: String) throws {
        let result = try AssetSyncBinary.run(arguments)
        #expect(result.status == 2)
        #expect(result.stdout == "")
        #expect(result.stderr == expected)
    }

    @Test func destThatIsAFileIsAUsageError() throws {
        let dest = try TemporaryDirectory()
        _ = FileManager.default.createFile(atPath: dest.path + "/file", contents: Data())
        let result = try AssetSyncBinary.run(
            ["plan", "manifests/example.xml", "--dest", dest.path + "/file"], directory: AssetSyncBinary.packageRoot)
        #expect(result.status == 2)
        #expect(result.stderr == "Error: --dest \"\(dest.path)/file\": not a directory\n")
    }

    @Test func missingManifestIsNamed() throws {
        let result = try AssetSyncBinary.run(["plan", "/nonexistent/m.xml"])
        #expect(result.status == 2)
        #expect(result.stderr == "Error: /nonexistent/m.xml: cannot open the manifest: No such file or directory\n")
    }
}
