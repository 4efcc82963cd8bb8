import Foundation
import Glibc
import Testing
import TestSupport

/// One directory for a test of the binary: the manifest, DEST (which a run creates) and, for a
/// test against nginx, the served tree, with the checks of what a run left behind.
///
/// Against a `FaultServer`, entries carry their URLs and the run's working directory is the
/// sandbox, so anything the binary writes outside DEST shows up there:
///
///     let sandbox = try Sandbox()
///     defer { sandbox.checkInvariants() }
///     sandbox.add("a.bin", resource, url: server.url("a.bin"))
///     let result = try sandbox.pull(["--retries", "1"])
///
/// Against nginx, the files are served from `served` and the manifest names them by `base`:
///
///     let sandbox = try Sandbox(serving: ["a.bin": PullNginxTests.random(1000)])
///     let nginx = try NginxServer(root: sandbox.served)
///     let result = try AssetSyncBinary.run(["pull", try sandbox.manifest(base: nginx.baseURL), "--dest", sandbox.dest])
///     #expect(try sandbox.cached() == sandbox.expected)
final class Sandbox {
    static let manifestName = "manifest.json"
    static let destName = "dest"
    static let servedName = "served"

    /// World-readable, so that nginx workers running as `nobody` can serve from it.
    let root: TemporaryDirectory
    private(set) var files: [TestManifest.File] = []
    /// The only bytes each manifest path may ever hold at its final path (the manifest's).
    private(set) var expected: [String: Data] = [:]
    /// The manifest's `base`, for entries without a `url`.
    var base: String?
    /// The manifest's mirror bases, alternatives to `base`.
    var mirrors: [String] = []
    /// The names in `root` that the sandbox itself made (the rest came from a run).
    private var made: Set<String> = [Sandbox.destName, Sandbox.manifestName]

    init() throws {
        root = try TemporaryDirectory()
        chmod(root.path, 0o755)
    }

    /// A sandbox whose `files` nginx serves from `served`, each named by the manifest without a `url`.
    convenience init(serving files: [String: Data]) throws {
        try self.init()
        for (path, data) in files.sorted(by: { $0.key < $1.key }) { try serve(path, data) }
    }

    var dest: String { root.path + "/" + Self.destName }
    var manifestPath: String { root.path + "/" + Self.manifestName }
    var partialDirectory: String { dest + "/.assetsync/partial" }
    /// The directory a test server serves from.
    var served: URL { root.url.appendingPathComponent(Self.servedName) }

    /// Adds (or replaces) a manifest entry at `path` whose right bytes are `content` (size and CRC-32 from them).
    func add(_ path: String, _ content: Data, url: String?, mirrors: [String] = [], chunks: String? = nil) {
        let entry = TestManifest.File(
            path: path, size: content.count, crc32: TestManifest.crc32Hex(content), url: url, mirrors: mirrors, chunks: chunks)
        if let index = files.firstIndex(where: { $0.path == path }) { files[index] = entry } else { files.append(entry) }
        expected[path] = content
    }

    /// Adds a manifest entry at `path` for `resource`'s bytes.
    func add(_ path: String, _ resource: FaultResource, url: String?, mirrors: [String] = []) {
        add(path, resource.allBytes, url: url, mirrors: mirrors)
    }

    /// Serves `data` at `path` under `served` and names it in the manifest (replacing an earlier version).
    func serve(_ path: String, _ data: Data) throws {
        try writeServed(path, data)
        add(path, data, url: nil)
    }

    /// Writes `data` at `path` under `served` without naming it in the manifest.
    func writeServed(_ path: String, _ data: Data) throws {
        made.insert(Self.servedName)
        let url = served.appendingPathComponent(path)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try data.write(to: url)
    }

    /// Writes the manifest (with `base` from now on, when given) and returns its path.
    @discardableResult
    func manifest(base: String? = nil) throws -> String {
        if let base { self.base = base }
        return try TestManifest.write(files, base: self.base, mirrors: mirrors, in: root, name: Self.manifestName)
    }

    /// Writes the manifest for `base` and serves it too, as `served/manifest.json`.
    func serveManifest(base: String) throws {
        try writeServed(Self.manifestName, Data(contentsOf: URL(fileURLWithPath: manifest(base: base))))
    }

    /// Writes another manifest named `name` in the sandbox, of `files`, and returns its path.
    func writeManifest(_ files: [TestManifest.File], base: String? = nil, name: String) throws -> String {
        made.insert(name)
        return try TestManifest.write(files, base: base, in: root, name: name)
    }

    /// A self-signed certificate for `127.0.0.1` and its key, made with openssl in the sandbox.
    func makeCertificate() throws -> (certificate: String, key: String) {
        made.formUnion(["cert.pem", "key.pem"])
        let certificate = root.path + "/cert.pem"
        let key = root.path + "/key.pem"
        let openssl = Process()
        openssl.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        openssl.arguments = [
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1",
            "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", key, "-out", certificate,
        ]
        openssl.standardError = FileHandle.nullDevice
        try openssl.run()
        openssl.waitUntilExit()
        try #require(openssl.terminationStatus == 0)
        return (certificate, key)
    }

    /// Makes DEST a directory assetsync manages, as any completed pull does: pulls an empty manifest into it.
    func completeAnEmptyPull() throws {
        let result = try AssetSyncBinary.run(["pull", writeManifest([], name: "empty.json"), "--dest", dest])
        #expect(result.status == 0, "\(result.stderr)")
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

    /// Writes the manifest and runs `assetsync pull MANIFEST --dest DEST OPTIONS` from the sandbox.
    func pull(_ options: [String] = [], environment: [String: String] = [:]) throws -> RunResult {
        try manifest()
        return try AssetSyncBinary.run(
            ["pull", manifestPath, "--dest", dest] + options, directory: root.url,
            environment: Self.environment(environment))
    }

    // MARK: - Inspection

    /// The regular files at final paths (under DEST, outside `.assetsync/`), by relative path,
    /// with their bytes; `others` lists what is neither a regular file nor a directory.
    func finalFiles(in dest: String? = nil) -> (files: [String: Data], others: [String]) {
        let dest = dest ?? self.dest
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

    /// The regular files at final paths, with their bytes: in DEST, or in another `dest` pulled from the same manifest.
    func cached(in dest: String? = nil) throws -> [String: Data] { finalFiles(in: dest).files }

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

    /// What a run may leave, as seen from outside, after any run:
    /// - every file at a final path is a regular file holding exactly its manifest bytes
    ///   (never a partial, a wrong version, an error body or a redirect target), or is absent;
    ///   nothing at a path the manifest does not name, no symlink or other special file;
    /// - nothing was created outside DEST: the sandbox holds only DEST and what the test made.
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
        let outside = ((try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? [])
            .filter { !made.contains($0) }
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
