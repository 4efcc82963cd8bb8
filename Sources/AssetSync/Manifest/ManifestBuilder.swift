/// Gathers the entries a reader has checked one by one, then applies the
/// rules that span entries: URL resolution against `base`, duplicate paths,
/// and a path that is also another entry's directory.
struct ManifestBuilder {
    /// How errors name an entry: by position in XML, by index in JSON.
    enum Style { case xml, json }

    let manifestName: String
    let style: Style
    private(set) var version: Int?
    private(set) var base: String?
    /// `base` taken apart, for resolving relative URLs against it.
    private var baseParts: URLRules.Parts?
    private var entries: [ManifestEntry] = []
    private var positions: [SourcePosition] = []
    private var hasRelativeURLs = false

    /// The fewest bytes an entry of a realistic manifest takes (the shortest possible is about
    /// 40): dividing the manifest's size by it gives room for every entry without regrowing the
    /// arrays, and memory reserved but never used is never touched.
    static let typicalEntryBytes: Int64 = 64

    /// `input`'s size, when known, sizes the entry arrays.
    init(manifestName: String, style: Style, sizeHint: Int64? = nil) {
        self.manifestName = manifestName
        self.style = style
        if let sizeHint {
            let expected = Int(min(sizeHint, ManifestInput.defaultLimit) / Self.typicalEntryBytes)
            entries.reserveCapacity(expected)
            positions.reserveCapacity(expected)
        }
    }

    var entryCount: Int { entries.count }

    func entryName(_ index: Int) -> String {
        switch style {
        case .xml: return "<file>"
        case .json: return "files[\(index)]"
        }
    }

    /// An error at `position`, about entry `index` when there is one.
    func error(_ violation: RuleViolation, at position: SourcePosition?, entry index: Int? = nil) -> ManifestError {
        ManifestError(
            manifest: manifestName, position: position, entry: index.map(entryName),
            problem: violation.problem, value: violation.value)
    }

    mutating func setVersion(_ text: String, at position: SourcePosition) throws(ManifestError) {
        do { version = try ManifestRules.version(text) } catch { throw self.error(error, at: position) }
    }

    mutating func setBase(_ text: String, at position: SourcePosition) throws(ManifestError) {
        do throws(RuleViolation) {
            let parts = try URLRules.parse(text, field: "base")
            guard parts.rest.isEmpty, parts.path.hasSuffix("/"), text.hasSuffix("/") else {
                throw RuleViolation(
                    "base must end with \"/\" (entries are fetched at base + path)", value: QuotedValue.quote(text))
            }
            base = text
            baseParts = parts
        } catch {
            throw self.error(error, at: position)
        }
    }

    /// Adds an entry whose fields have each passed their rule; URLs may still be relative.
    mutating func add(_ entry: ManifestEntry, urlsAreAbsolute: Bool, at position: SourcePosition) {
        if !urlsAreAbsolute { hasRelativeURLs = true }
        entries.append(entry)
        positions.append(position)
    }

    mutating func finish() throws(ManifestError) -> Manifest {
        guard let version else {
            throw ManifestError(manifest: manifestName, problem: "the manifest has no version (expected \(Manifest.supportedVersion))")
        }
        try resolveURLs()
        try checkPathsAreUnique()
        return Manifest(version: version, base: base, entries: entries)
    }

    private mutating func resolveURLs() throws(ManifestError) {
        if base != nil, !hasRelativeURLs { return }
        for index in entries.indices {
            let position = positions[index]
            if entries[index].url == nil, base == nil {
                throw error(
                    RuleViolation("has no url, and the manifest has no base to fetch it from"),
                    at: position, entry: index)
            }
            guard hasRelativeURLs else { continue }
            if let url = entries[index].url, !URLRules.hasScheme(url) {
                entries[index].url = try resolved(url, field: "url", entry: index)
            }
            for mirror in entries[index].mirrors.indices where !URLRules.hasScheme(entries[index].mirrors[mirror]) {
                entries[index].mirrors[mirror] = try resolved(entries[index].mirrors[mirror], field: "mirror url", entry: index)
            }
        }
    }

    /// The relative `url` resolved against `base`.
    private func resolved(_ url: String, field: String, entry index: Int) throws(ManifestError) -> String {
        guard let baseParts else {
            throw error(
                RuleViolation("\(field) is relative, but the manifest has no base", value: QuotedValue.quote(url)),
                at: positions[index], entry: index)
        }
        do {
            return try URLRules.resolve(url, against: baseParts, field: field)
        } catch {
            throw self.error(error, at: positions[index], entry: index)
        }
    }

    /// No two entries share a path, and no entry's path is a directory of another's.
    private func checkPathsAreUnique() throws(ManifestError) {
        let problem = entries.withUnsafeBufferPointer { Self.pathProblem(in: $0) }
        switch problem {
        case nil:
            return
        case let .duplicate(index, earlier)?:
            throw error(
                RuleViolation("path is listed twice (also \(describe(earlier)))", value: QuotedValue.quote(entries[index].path)),
                at: positions[index], entry: index)
        case let .directoryOfAnother(index, other)?:
            throw error(
                RuleViolation(
                    "path is a file here but a directory of \(QuotedValue.quote(entries[other].path)) (\(describe(other)))",
                    value: QuotedValue.quote(entries[index].path)),
                at: positions[index], entry: index)
        }
    }

    private enum PathProblem {
        case duplicate(Int, earlier: Int)
        case directoryOfAnother(Int, other: Int)
    }

    /// The first duplicate path in entry order, else the first path that is another's directory.
    ///
    /// Every directory prefix ("a/", "a/b/" of "a/b/c") goes into a table; neighbouring
    /// entries mostly share their directories, so a prefix that the previous path also
    /// has is already there and is not looked up again. The whole paths go into their own
    /// table in a separate pass over the hashes: that pass is one random memory access per
    /// entry, and a short loop lets the processor overlap them.
    private static func pathProblem(in entries: UnsafeBufferPointer<ManifestEntry>) -> PathProblem? {
        var directories = PathTable(capacity: 1024)
        var hashes = [UInt64](repeating: 0, count: entries.count)
        var previous = ""
        for index in entries.indices {
            var path = entries[index].path
            hashes[index] = path.withUTF8 { bytes in
                let shared = previous.withUTF8 { Self.commonPrefixCount(bytes, $0) }
                var hash = PathTable.seed
                for offset in 0..<bytes.count {
                    let byte = bytes[offset]
                    if byte == UInt8(ascii: "/"), offset >= shared {
                        _ = directories.insert(prefixOf: index, count: offset, hash: hash, in: entries)
                    }
                    hash = PathTable.mix(hash, byte)
                }
                return hash
            }
            previous = path
        }
        var files = PathTable(capacity: entries.count)
        for index in entries.indices {
            let count = entries[index].path.utf8.count
            if let earlier = files.insert(prefixOf: index, count: count, hash: hashes[index], in: entries) {
                return .duplicate(index, earlier: earlier)
            }
        }
        for index in entries.indices {
            let count = entries[index].path.utf8.count
            if let other = directories.find(prefixOf: index, count: count, hash: hashes[index], in: entries) {
                return .directoryOfAnother(index, other: other)
            }
        }
        return nil
    }

    /// How many leading bytes `a` and `b` share.
    private static func commonPrefixCount(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Int {
        let limit = min(a.count, b.count)
        var count = 0
        while count < limit, a[count] == b[count] { count += 1 }
        return count
    }

    private func describe(_ index: Int) -> String {
        switch style {
        case .xml: return "at \(positions[index])"
        case .json: return "at files[\(index)]"
        }
    }
}
