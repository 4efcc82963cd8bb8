import Foundation
import Glibc
import Testing

/// One `assetsync pull` in isolation, and the checks of DESIGN.md §4 on what it left behind.
///
/// The sandbox is a fresh parent directory that holds only the manifest and DEST (which the run
/// creates), and the run's working directory is that parent: anything the binary writes outside
/// DEST shows up there.
///
///     let sandbox = try PullSandbox()
///     defer { sandbox.checkInvariants() }
///     sandbox.add("a.bin", resource, url: server.url("a.bin"))
///     let result = try sandbox.pull(["--retries", "1"])
final class PullSandbox {
    static let manifestName = "manifest.json"
    static let destName = "dest"

    let parent: TemporaryDirectory
    private(set) var files: [TestManifest.File] = []
    /// The only bytes each manifest path may ever hold at its final path (the manifest's).
    private(set) var expected: [String: Data] = [:]
    /// The manifest's `base`, for entries without a `url`.
    var base: String?

    init() throws { parent = try TemporaryDirectory() }

    var dest: String { parent.path + "/" + Self.destName }
    var manifestPath: String { parent.path + "/" + Self.manifestName }
    var partialDirectory: String { dest + "/.assetsync/partial" }

    /// Adds a manifest entry at `path` whose right bytes are `content` (size and CRC-32 from them).
    func add(_ path: String, _ content: Data, url: String?, mirrors: [String] = []) {
        files.append(TestManifest.File(
            path: path, size: content.count, crc32: TestManifest.crc32Hex(content), url: url, mirrors: mirrors))
        expected[path] = content
    }

    /// Adds a manifest entry at `path` for `resource`'s bytes.
    func add(_ path: String, _ resource: FaultResource, url: String?, mirrors: [String] = []) {
        add(path, resource.allBytes, url: url, mirrors: mirrors)
    }

    /// The environment of a run: this process's, without proxy settings (loopback only) or
    /// assetsync tuning, with fast retries unless `overrides` say otherwise.
    static func environment(_ overrides: [String: String]) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment.filter { key, _ in
            let lower = key.lowercased()
            return !lower.hasSuffix("_proxy") && !key.hasPrefix("ASSETSYNC_") && key != "CURL_HOME"
        }
        environment["ASSETSYNC_RETRY_DELAY"] = "0.05"
        for (key, value) in overrides { environment[key] = value }
        return environment
    }

    /// Writes the manifest and runs `assetsync pull MANIFEST --dest DEST OPTIONS` from the parent directory.
    func pull(_ options: [String] = [], environment: [String: String] = [:]) throws -> RunResult {
        _ = try TestManifest.write(files, base: base, in: parent, name: Self.manifestName)
        return try AssetSyncBinary.run(
            ["pull", manifestPath, "--dest", dest] + options, directory: parent.url,
            environment: Self.environment(environment))
    }

    // MARK: - Inspection

    /// The regular files at final paths (under DEST, outside `.assetsync/`), by relative path,
    /// with their bytes; `others` lists what is neither a regular file nor a directory.
    func finalFiles() -> (files: [String: Data], others: [String]) {
        var files: [String: Data] = [:]
        var others: [String] = []
        func walk(_ relative: String) {
            let absolute = relative.isEmpty ? dest : dest + "/" + relative
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: absolute) else { return }
            for name in names.sorted() {
                if relative.isEmpty && name == ".assetsync" { continue }
                let child = relative.isEmpty ? name : relative + "/" + name
                switch Self.kind(dest + "/" + child) {
                case S_IFDIR: walk(child)
                case S_IFREG: files[child] = FileManager.default.contents(atPath: dest + "/" + child) ?? Data()
                default: others.append(child)
                }
            }
        }
        walk("")
        return (files, others)
    }

    /// The bytes at a final path, or nil when nothing (or no regular file) is there.
    func finalContent(_ path: String) -> Data? { finalFiles().files[path] }

    /// The names in `DEST/.assetsync/partial/`, sorted.
    func partialNames() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: partialDirectory)) ?? []).sorted()
    }

    /// The sizes of the `.part` files in `DEST/.assetsync/partial/`.
    func partialSizes() -> [Int] {
        partialNames().filter { $0.hasSuffix(".part") }.compactMap { name in
            var status = stat()
            guard lstat(partialDirectory + "/" + name, &status) == 0 else { return nil }
            return Int(status.st_size)
        }
    }

    /// The file type bits (`S_IFREG`, …) of `path`, not following a symlink; 0 if it cannot be read.
    static func kind(_ path: String) -> mode_t {
        var status = stat()
        guard lstat(path, &status) == 0 else { return 0 }
        return status.st_mode & S_IFMT
    }

    // MARK: - Invariants

    /// DESIGN.md §4 as seen from outside, after any run:
    /// - every file at a final path is a regular file holding exactly its manifest bytes
    ///   (never a partial, a wrong version, an error body or a redirect target), or is absent;
    ///   nothing at a path the manifest does not name, no symlink or other special file;
    /// - nothing was created outside DEST: its parent holds only DEST and the manifest.
    func checkInvariants(sourceLocation: SourceLocation = #_sourceLocation) {
        let (found, others) = finalFiles()
        for (path, bytes) in found.sorted(by: { $0.key < $1.key }) {
            guard let right = expected[path] else {
                Issue.record("a file the manifest does not name is at the final path '\(path)' (\(bytes.count) bytes)",
                             sourceLocation: sourceLocation)
                continue
            }
            if bytes != right {
                let first = zip(bytes, right).enumerated().first { $0.element.0 != $0.element.1 }?.offset
                let detail = first.map { " (first difference at offset \($0))" } ?? ""
                Issue.record(
                    "the final path '\(path)' holds \(bytes.count) bytes that are not the manifest's \(right.count)\(detail)",
                    sourceLocation: sourceLocation)
            }
        }
        #expect(others.isEmpty, "not regular files or directories under DEST: \(others)", sourceLocation: sourceLocation)
        let outside = ((try? FileManager.default.contentsOfDirectory(atPath: parent.path)) ?? [])
            .filter { $0 != Self.destName && $0 != Self.manifestName }
        #expect(outside.isEmpty, "created outside DEST: \(outside)", sourceLocation: sourceLocation)
        #expect(Self.kind(dest) == S_IFDIR || Self.kind(dest) == 0, "DEST is not a directory", sourceLocation: sourceLocation)
        if Self.kind(dest + "/.assetsync") != 0 {
            #expect(Self.kind(dest + "/.assetsync") == S_IFDIR, sourceLocation: sourceLocation)
        }
    }
}

extension RunResult {
    /// The lines of stderr, without line ends.
    var stderrLines: [String] { stderr.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) }

    /// The stderr lines that start with `prefix` (such as `"failed   a.bin: "` or `"retry    a.bin: "`).
    func stderrLines(startingWith prefix: String) -> [String] { stderrLines.filter { $0.hasPrefix(prefix) } }
}
