/// Reads a JSON manifest in one streaming pass. The reader knows the schema,
/// so it never builds a generic tree: any value of the wrong kind (and so
/// any deep nesting), unknown key or duplicate key is refused where it stands.
struct JSONManifestReader {
    private var text: JSONText
    private var builder: ManifestBuilder

    static func read(_ input: ManifestInput) throws(ManifestError) -> Manifest {
        var reader = JSONManifestReader(
            text: JSONText(input: input), builder: ManifestBuilder(manifestName: input.name, style: .json))
        return try reader.readManifest()
    }

    private mutating func readManifest() throws(ManifestError) -> Manifest {
        try text.skipWhitespace()
        guard try text.peek() == UInt8(ascii: "{") else {
            throw text.failure(RuleViolation("the manifest must be a JSON object, not \(try text.kindOfValue())"))
        }
        var sawFiles = false
        try readObject(allowed: ["version", "base", "files"], entry: nil) { reader, key, _ throws(ManifestError) in
            let position = reader.text.position
            switch key {
            case "version":
                try reader.builder.setVersion(try reader.text.readNumber(field: "version", entry: nil), at: position)
            case "base":
                try reader.builder.setBase(try reader.text.readString(field: "base", entry: nil), at: position)
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

    private mutating func readEntry() throws(ManifestError) {
        let index = builder.entryCount
        let entry = builder.entryName(index)
        guard try text.peek() == UInt8(ascii: "{") else {
            throw text.failure(RuleViolation("each file must be an object, not \(try text.kindOfValue())"), entry: entry)
        }
        let position = text.position
        var path: String?
        var size: Int64?
        var crc32: UInt32?
        var url: String?
        var mirrors: [String] = []
        var urlsAreAbsolute = true
        try readObject(allowed: ["path", "size", "crc32", "url", "mirrors"], entry: entry) {
            reader, key, _ throws(ManifestError) in
            let at = reader.text.position
            switch key {
            case "path":
                path = try reader.check(ManifestRules.path, try reader.text.readString(field: key, entry: entry), at, entry)
            case "size":
                size = try reader.check(ManifestRules.size, try reader.text.readNumber(field: key, entry: entry), at, entry)
            case "crc32":
                crc32 = try reader.check(ManifestRules.crc32, try reader.text.readString(field: key, entry: entry), at, entry)
            case "url":
                let raw = try reader.text.readString(field: key, entry: entry)
                let checked = try reader.check({ (url: String) throws(RuleViolation) in try URLRules.check(url, field: "url") }, raw, at, entry)
                url = checked.text
                urlsAreAbsolute = urlsAreAbsolute && checked.isAbsolute
            default:
                try reader.readArray(field: "mirrors", entry: entry) { reader throws(ManifestError) in
                    let at = reader.text.position
                    let field = "mirrors[\(mirrors.count)]"
                    let raw = try reader.text.readString(field: field, entry: entry)
                    let checked = try reader.check({ (url: String) throws(RuleViolation) in try URLRules.check(url, field: field) }, raw, at, entry)
                    mirrors.append(checked.text)
                    urlsAreAbsolute = urlsAreAbsolute && checked.isAbsolute
                }
            }
        }
        for (name, present) in [("path", path != nil), ("size", size != nil), ("crc32", crc32 != nil)] where !present {
            throw text.failure(RuleViolation("missing the required key \"\(name)\""), at: position, entry: entry)
        }
        builder.add(
            ManifestEntry(path: path!, size: size!, crc32: crc32!, url: url, mirrors: mirrors),
            urlsAreAbsolute: urlsAreAbsolute, at: position)
    }

    /// Applies a field rule, placing a broken rule at the value's position.
    private func check<T>(
        _ rule: (String) throws(RuleViolation) -> T, _ raw: String, _ position: SourcePosition, _ entry: String
    ) throws(ManifestError) -> T {
        do { return try rule(raw) } catch { throw text.failure(error, at: position, entry: entry) }
    }

    /// Reads an object of known keys, refusing unknown and duplicate ones.
    private mutating func readObject(
        allowed: [String], entry: String?,
        _ value: (inout JSONManifestReader, String, SourcePosition) throws(ManifestError) -> Void
    ) throws(ManifestError) {
        var seen: [String] = []
        try text.expect(UInt8(ascii: "{"), entry: entry)
        try text.skipWhitespace()
        if try text.peek() == UInt8(ascii: "}") { return try text.expect(UInt8(ascii: "}"), entry: entry) }
        while true {
            try text.skipWhitespace()
            let keyPosition = text.position
            guard try text.peek() == UInt8(ascii: "\"") else {
                throw text.failure(RuleViolation("expected a key in double quotes"), entry: entry)
            }
            let key = try text.readString(field: "key", entry: entry)
            guard allowed.contains(key) else {
                throw text.failure(
                    RuleViolation("unknown key \(QuotedValue.quote(key)) (allowed: \(allowed.joined(separator: ", ")))"),
                    at: keyPosition, entry: entry)
            }
            guard !seen.contains(key) else {
                throw text.failure(RuleViolation("duplicate key \(QuotedValue.quote(key))"), at: keyPosition, entry: entry)
            }
            seen.append(key)
            try text.skipWhitespace()
            try text.expect(UInt8(ascii: ":"), entry: entry)
            try text.skipWhitespace()
            try value(&self, key, keyPosition)
            try text.skipWhitespace()
            if try text.peek() == UInt8(ascii: ",") {
                try text.expect(UInt8(ascii: ","), entry: entry)
                continue
            }
            return try text.expect(UInt8(ascii: "}"), entry: entry)
        }
    }

    private mutating func readArray(
        field: String, entry: String?, _ element: (inout JSONManifestReader) throws(ManifestError) -> Void
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
