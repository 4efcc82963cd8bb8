package import AssetSyncModel

/// Reads a JSON manifest in one streaming pass. The reader knows the schema,
/// so it never builds a generic tree: any value of the wrong kind (and so
/// any deep nesting), unknown key or duplicate key is refused where it stands.
package struct JSONManifestReader {
    private var text: JSONText
    private var builder: ManifestBuilder

    package static func read(_ input: ManifestInput) throws(ManifestError) -> Manifest {
        var reader = JSONManifestReader(
            text: JSONText(input: input), builder: ManifestBuilder(manifestName: input.name, style: .json, sizeHint: input.sizeHint))
        return try reader.readManifest()
    }

    private mutating func readManifest() throws(ManifestError) -> Manifest {
        try text.skipByteOrderMark()
        try text.skipWhitespace()
        guard try text.peek() == UInt8(ascii: "{") else {
            throw text.failure(RuleViolation("the manifest must be a JSON object, not \(try text.kindOfValue())"))
        }
        var sawFiles = false
        try readObject(allowed: ["version", "base", "mirrors", "files"], entry: nil) { reader, key, _ throws(ManifestError) in
            let position = reader.text.position
            switch key {
            case "version":
                try reader.builder.setVersion(try reader.text.readNumber(field: "version", entry: nil), at: position)
            case "base":
                try reader.builder.setBase(try reader.text.readString(field: "base", entry: nil, maximumBytes: URLRules.maximumBytes), at: position)
            case "mirrors":
                try reader.readManifestMirrors()
            default:
                sawFiles = true
                try reader.readArray(field: "files", entry: nil) { reader throws(ManifestError) in
                    try reader.readEntry()
                }
            }
        }
        try text.skipWhitespace()
        if try text.peek() != nil {
            throw text.failure(RuleViolation("unexpected data after the manifest object"))
        }
        guard sawFiles else {
            throw ManifestError(manifest: text.name, problem: "the manifest has no \"files\" array")
        }
        return try builder.finish()
    }

    private static let entryKeys = ["path", "size", "crc32", "url", "mirrors", "sha256", "chunks"]
    /// The most bytes each string field may have; a longer one is refused before it is all read.
    private static let maximumBytes = [ManifestRules.maximumPathBytes, 0, 64, URLRules.maximumBytes, 0, 256, Int(Manifest.sizeLimit / 4)]

    /// Reads one `files[]` object. Written as a plain loop: it runs once per entry,
    /// a million times for a large manifest.
    private mutating func readEntry() throws(ManifestError) {
        let index = builder.entryCount
        guard try text.peek() == UInt8(ascii: "{") else {
            throw text.failure(RuleViolation("each file must be an object, not \(try text.kindOfValue())"), entry: index)
        }
        let position = text.position
        var path: String?
        var size: Int64?
        var crc32: UInt32?
        var sha256: SHA256Digest?
        var url: String?
        var mirrors: [String] = []
        var urlsAreAbsolute = true
        /// Checked once the size is known, wherever it stands.
        var chunksText: (text: String, at: SourcePosition)?
        var seen: UInt32 = 0
        try text.expect(UInt8(ascii: "{"), entry: index)
        try text.skipWhitespace()
        var more = try text.peek() != UInt8(ascii: "}")
        while more {
            try text.skipWhitespace()
            let key = try readKey(among: Self.entryKeys, seen: &seen, entry: index)
            let at = text.position
            let field = Self.entryKeys[key]
            switch key {
            case 0:
                let raw = try text.readString(field: field, entry: index, maximumBytes: Self.maximumBytes[0])
                path = try checking(at: at, entry: index) { () throws(RuleViolation) in try ManifestRules.path(raw) }
            case 1:
                if let plain = text.quickInteger() {
                    size = plain
                } else {
                    let raw = try text.readNumber(field: field, entry: index)
                    size = try checking(at: at, entry: index) { () throws(RuleViolation) in try ManifestRules.size(raw) }
                }
            case 2:
                if let plain = text.quickCRC32() {
                    crc32 = plain
                } else {
                    let raw = try text.readString(field: field, entry: index, maximumBytes: Self.maximumBytes[2])
                    crc32 = try checking(at: at, entry: index) { () throws(RuleViolation) in try ManifestRules.crc32(raw) }
                }
            case 3:
                let raw = try text.readString(field: field, entry: index, maximumBytes: Self.maximumBytes[3])
                let checked = try checking(at: at, entry: index) { () throws(RuleViolation) in
                    try URLRules.check(raw, field: field)
                }
                url = checked.text
                urlsAreAbsolute = urlsAreAbsolute && checked.isAbsolute
            case 4:
                try readMirrors(into: &mirrors, allAbsolute: &urlsAreAbsolute, entry: index)
            case 5:
                let raw = try text.readString(field: field, entry: index, maximumBytes: Self.maximumBytes[5])
                sha256 = try checking(at: at, entry: index) { () throws(RuleViolation) in try ManifestRules.sha256(raw) }
            default:
                chunksText = (try text.readString(field: field, entry: index, maximumBytes: Self.maximumBytes[6]), at)
            }
            try text.skipWhitespace()
            more = try text.peek() == UInt8(ascii: ",")
            if more { try text.expect(UInt8(ascii: ","), entry: index) }
        }
        try text.expect(UInt8(ascii: "}"), entry: index)
        guard let path, let size, crc32 != nil || sha256 != nil else {
            let missing = path == nil ? "\"path\"" : size == nil ? "\"size\"" : "\"crc32\" (or \"sha256\")"
            throw text.failure(RuleViolation("missing the required key \(missing)"), at: position, entry: index)
        }
        let chunks = try chunksText.map { chunks throws(ManifestError) in
            try checking(at: chunks.at, entry: index) { () throws(RuleViolation) in try ChunkList(manifestText: chunks.text, size: size) }
        }
        builder.add(
            ManifestEntry(path: path, size: size, crc32: crc32, sha256: sha256, url: url, mirrors: mirrors, chunks: chunks),
            urlsAreAbsolute: urlsAreAbsolute, at: position)
    }

    /// The result of a field's rule, or its violation as an error at `at` in entry `entry`.
    @inline(__always)
    private func checking<Value>(
        at: SourcePosition, entry: Int, _ rule: () throws(RuleViolation) -> Value
    ) throws(ManifestError) -> Value {
        do {
            return try rule()
        } catch {
            throw text.failure(error, at: at, entry: entry)
        }
    }

    private mutating func readMirrors(
        into mirrors: inout [String], allAbsolute: inout Bool, entry: Int
    ) throws(ManifestError) {
        var found: [String] = []
        var absolute = true
        try readArray(field: "mirrors", entry: entry) { reader throws(ManifestError) in
            let at = reader.text.position
            let field = "mirrors[\(found.count)]"
            let raw = try reader.text.readString(field: field, entry: entry, maximumBytes: URLRules.maximumBytes)
            do throws(RuleViolation) {
                let checked = try URLRules.check(raw, field: field)
                found.append(checked.text)
                absolute = absolute && checked.isAbsolute
            } catch {
                throw reader.text.failure(error, at: at, entry: entry)
            }
        }
        mirrors = found
        allAbsolute = allAbsolute && absolute
    }

    /// Reads the top-level `"mirrors"`: an array of mirror bases, each checked as `base` is.
    private mutating func readManifestMirrors() throws(ManifestError) {
        var count = 0
        try readArray(field: "mirrors", entry: nil) { reader throws(ManifestError) in
            let at = reader.text.position
            let field = "mirrors[\(count)]"
            let base = try reader.text.readString(field: field, entry: nil, maximumBytes: URLRules.maximumBytes)
            try reader.builder.addMirror(base, field: field, at: at)
            count += 1
        }
    }

    /// Reads `"key":` for one of `keys`, refusing an unknown or repeated one; returns its index.
    private mutating func readKey(among keys: [String], seen: inout UInt32, entry: Int?) throws(ManifestError) -> Int {
        let keyPosition = text.position
        guard try text.peek() == UInt8(ascii: "\"") else {
            throw text.failure(RuleViolation("expected a key in double quotes"), entry: entry)
        }
        let (index, key) = try text.readKey(among: keys, entry: entry)
        guard let index else {
            throw text.failure(
                RuleViolation("unknown key \(QuotedValue.quote(key)) (allowed: \(keys.joined(separator: ", ")))"),
                at: keyPosition, entry: entry)
        }
        guard seen & (1 << index) == 0 else {
            throw text.failure(RuleViolation("duplicate key \(QuotedValue.quote(key))"), at: keyPosition, entry: entry)
        }
        seen |= 1 << index
        try text.skipWhitespace()
        try text.expect(UInt8(ascii: ":"), entry: entry)
        try text.skipWhitespace()
        return index
    }

    /// Reads an object of known keys, refusing unknown and duplicate ones.
    private mutating func readObject(
        allowed: [String], entry: Int?,
        _ value: (inout JSONManifestReader, String, SourcePosition) throws(ManifestError) -> Void
    ) throws(ManifestError) {
        var seen: UInt32 = 0
        try text.expect(UInt8(ascii: "{"), entry: entry)
        try text.skipWhitespace()
        if try text.peek() == UInt8(ascii: "}") { return try text.expect(UInt8(ascii: "}"), entry: entry) }
        while true {
            try text.skipWhitespace()
            let keyPosition = text.position
            let index = try readKey(among: allowed, seen: &seen, entry: entry)
            try value(&self, allowed[index], keyPosition)
            try text.skipWhitespace()
            if try text.peek() == UInt8(ascii: ",") {
                try text.expect(UInt8(ascii: ","), entry: entry)
                continue
            }
            return try text.expect(UInt8(ascii: "}"), entry: entry)
        }
    }

    private mutating func readArray(
        field: String, entry: Int?, _ element: (inout JSONManifestReader) throws(ManifestError) -> Void
    ) throws(ManifestError) {
        guard try text.peek() == UInt8(ascii: "[") else {
            throw text.failure(RuleViolation("\(field) must be an array, not \(try text.kindOfValue())"), entry: entry)
        }
        try text.expect(UInt8(ascii: "["), entry: entry)
        try text.skipWhitespace()
        if try text.peek() == UInt8(ascii: "]") { return try text.expect(UInt8(ascii: "]"), entry: entry) }
        while true {
            try text.skipWhitespace()
            try element(&self)
            try text.skipWhitespace()
            if try text.peek() == UInt8(ascii: ",") {
                try text.expect(UInt8(ascii: ","), entry: entry)
                continue
            }
            return try text.expect(UInt8(ascii: "]"), entry: entry)
        }
    }
}
