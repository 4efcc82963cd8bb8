import TestSupport

/// The files a soak serves and its manifest names: mostly small ones (up to 64 KiB, in ten
/// directories), one in twenty of 1 to 4 MiB (under `big/`, large enough for segments and resume
/// records), changed between runs at random from a seeded generator.
struct SoakFileSet {
    /// One version of a file: its bytes (a seeded pattern) and their CRC-32.
    struct Version {
        let resource: FaultResource
        let crc32: String

        init(size: Int, random: inout SeededGenerator) {
            resource = .pattern(size: size, seed: random.next())
            crc32 = resource.crc32Hex
        }
    }

    /// What one `change` did, by kind of change.
    struct Changes: CustomStringConvertible {
        var added: [String] = []
        var removed: [String] = []
        var rewritten: [String] = []
        var resized: [String] = []

        /// The paths whose bytes the server now serves differently (or newly).
        var served: [String] { added + rewritten + resized }

        var description: String { "+\(added.count) -\(removed.count) ~\(rewritten.count) content ~\(resized.count) size" }
    }

    private(set) var files: [String: Version] = [:]
    private var nextID = 0

    /// `count` files, one in twenty of them large.
    init(count: Int, random: inout SeededGenerator) {
        for index in 0..<count { add(large: index % 20 == 19, random: &random) }
    }

    /// The paths in order (dictionary order differs between processes; a seed must replay).
    var paths: [String] { files.keys.sorted() }

    /// The manifest's entries, each file at `url(path)`.
    func entries(url: (String) -> String) -> [TestManifest.File] {
        paths.map { path in
            let version = files[path]!
            return TestManifest.File(path: path, size: version.resource.size, crc32: version.crc32, url: url(path))
        }
    }

    /// One round of changes: 2 to 10 files removed, about as many added, 2 to 10 rewritten with other
    /// bytes of the same size, 2 to 10 given another size, and every other round a large file rewritten.
    mutating func change(random: inout SeededGenerator) -> Changes {
        var changes = Changes()
        let removals = Int.random(in: 2...10, using: &random)
        for _ in 0..<removals where files.count > 1 {
            let path = paths.randomElement(using: &random)!
            files[path] = nil
            changes.removed.append(path)
        }
        for _ in 0..<max(0, removals + Int.random(in: -2...2, using: &random)) {
            changes.added.append(add(large: Int.random(in: 0..<20, using: &random) == 0, random: &random))
        }
        let unchanged = { (changes: Changes, path: String) in !changes.served.contains(path) }
        for _ in 0..<Int.random(in: 2...10, using: &random) {
            guard let path = paths.filter({ unchanged(changes, $0) }).randomElement(using: &random) else { break }
            files[path] = Version(size: files[path]!.resource.size, random: &random)
            changes.rewritten.append(path)
        }
        if Bool.random(using: &random),
           let path = paths.filter({ $0.hasPrefix("big/") && unchanged(changes, $0) }).randomElement(using: &random) {
            files[path] = Version(size: files[path]!.resource.size, random: &random)
            changes.rewritten.append(path)
        }
        for _ in 0..<Int.random(in: 2...10, using: &random) {
            guard let path = paths.filter({ unchanged(changes, $0) }).randomElement(using: &random) else { break }
            let size = files[path]!.resource.size
            var resized = Self.size(large: path.hasPrefix("big/"), random: &random)
            if resized == size { resized += 1 }
            files[path] = Version(size: resized, random: &random)
            changes.resized.append(path)
        }
        return changes
    }

    /// Adds a file under a name never used before; returns its path.
    @discardableResult
    private mutating func add(large: Bool, random: inout SeededGenerator) -> String {
        nextID += 1
        let path = large ? "big/b\(nextID).bin" : "d\(nextID % 10)/f\(nextID).bin"
        files[path] = Version(size: Self.size(large: large, random: &random), random: &random)
        return path
    }

    private static func size(large: Bool, random: inout SeededGenerator) -> Int {
        large ? Int.random(in: (1 << 20)...(4 << 20), using: &random) : Int.random(in: 0...(64 << 10), using: &random)
    }
}
