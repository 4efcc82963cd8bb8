import Foundation
import Glibc

/// One set of files in two versions, served by nginx under `v1/` and `v2/`, with a manifest for each:
/// what `pull --atomic` switches between while readers and kills test that no one sees a mix.
struct TwoVersions {
    let sandbox: Sandbox
    let nginx: NginxServer
    /// The bytes of each path, per version (index 0 and 1).
    let contents: [[String: Data]]
    /// The manifest of each version.
    let manifests: [String]

    /// `count` files of `size` bytes each; every file differs between the versions, `unchanged` of them excepted.
    init(count: Int, size: Int, unchanged: Int = 0) throws {
        sandbox = try Sandbox()
        var contents: [[String: Data]] = [[:], [:]]
        for index in 0..<count {
            let path = String(format: "set/%@f%03d.bin", index % 2 == 0 ? "" : "deep/", index)
            let first = PullNginxTests.random(size)
            contents[0][path] = first
            contents[1][path] = index < unchanged ? first : PullNginxTests.random(size)
        }
        for (version, files) in contents.enumerated() {
            for (path, data) in files { try sandbox.writeServed("v\(version + 1)/" + path, data) }
        }
        nginx = try NginxServer(root: sandbox.served)
        var manifests: [String] = []
        for (version, files) in contents.enumerated() {
            let entries = files.sorted { $0.key < $1.key }.map {
                TestManifest.File(path: $0.key, size: $0.value.count, crc32: TestManifest.crc32Hex($0.value), url: nil)
            }
            manifests.append(try sandbox.writeManifest(entries, base: nginx.baseURL + "v\(version + 1)/", name: "m\(version + 1).json"))
        }
        self.contents = contents
        self.manifests = manifests
    }

    /// Which version the files under `directory` are, all of them: nil when they mix versions, a file
    /// matches neither, or one is missing or extra.
    func version(of files: [String: Data]) -> Int? { Self.version(of: files, in: contents) }

    static func version(of files: [String: Data], in contents: [[String: Data]]) -> Int? {
        contents.firstIndex { $0 == files }
    }

    /// The generation DEST's symlink names (`dest.assetsync/gen-000003`), or nil when DEST is no symlink.
    func link() -> String? { try? FileManager.default.destinationOfSymbolicLink(atPath: sandbox.dest) }

    /// Every file under DEST through one descriptor of DEST opened once, as a careful consumer reads
    /// a set: the names and bytes all come from the one generation that descriptor holds.
    func readThroughOneOpen() -> [String: Data]? { Self.readSet(sandbox.dest, paths: Array(contents[0].keys)) }

    static func readSet(_ dest: String, paths: [String]) -> [String: Data]? {
        let fd = open(dest, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var files: [String: Data] = [:]
        for path in paths {
            let file = openat(fd, path, O_RDONLY | O_CLOEXEC)
            guard file >= 0 else { return nil }
            defer { close(file) }
            var data = Data()
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                let count = read(file, &buffer, buffer.count)
                if count <= 0 { break }
                data.append(contentsOf: buffer[..<count])
            }
            files[path] = data
        }
        return files
    }
}
