/// Gathers the entries a reader has checked one by one, then applies the
/// rules that span entries: URL resolution against `base`, duplicate paths
/// (canonically equivalent ones too), and a path that is also another entry's directory.
package struct ManifestBuilder {
    /// How errors name an entry: by position in XML, by index in JSON, by position and name in a Metalink.
    package enum Style { case xml, json, metalink }

    package let manifestName: String
    package let style: Style
    package private(set) var version: Int?
    package private(set) var base: String?
    /// `base` taken apart, for resolving relative URLs against it.
    private var baseParts: URLRules.Parts?
    /// The manifest-level mirror bases, in order, and where each stands.
    private var mirrors: [String] = []
    private var mirrorPositions: [SourcePosition] = []
    /// The base and the mirror bases as `URLRules.normalized` spells them: one base under two
    /// spellings (`HTTP://h/`, `http://h/./`, `http://h:80/x/../`) is listed twice.
    private var baseKey: String?
    private var mirrorKeys: [String] = []
    private var entries: [ManifestEntry] = []
    private var positions: [SourcePosition] = []
    private var paths = PathIndex()
    /// The entries with a relative url or mirror, in order.
    private var relativeURLEntries: [Int] = []
    /// The entries with mirrors of their own, in order: each must differ from the entry's url and
    /// from its other mirrors.
    private var mirroredEntries: [Int] = []
    /// The notes for the user, in order, each once.
    private var notes: [String] = []

    /// The bytes per entry assumed when sizing the arrays from the manifest's size. Realistic
    /// entries take 90-110 bytes (the shortest possible, about 40), so this errs towards room to
    /// spare, which costs nothing: memory reserved but never used is never touched. A manifest
    /// of shorter entries only regrows its arrays, as without the estimate.
    static let typicalEntryBytes: Int64 = 64

    /// `input`'s size, when known, sizes the entry arrays.
    package init(manifestName: String, style: Style, sizeHint: Int64? = nil) {
        self.manifestName = manifestName
        self.style = style
        if let sizeHint {
            let expected = Int(min(sizeHint, Manifest.sizeLimit) / Self.typicalEntryBytes)
            entries.reserveCapacity(expected)
            positions.reserveCapacity(expected)
            paths = PathIndex(capacity: expected)
        }
    }

    package var entryCount: Int { entries.count }

    func entryName(_ index: Int) -> String {
        switch style {
        case .xml: return "<file>"
        case .json: return "files[\(index)]"
        case .metalink: return "<file> " + QuotedValue.quote(entries[index].path)
        }
    }

    /// An error at `position`, about entry `index` when there is one.
    package func error(_ violation: RuleViolation, at position: SourcePosition?, entry index: Int? = nil) -> ManifestError {
        ManifestError(
            manifest: manifestName, position: position, entry: index.map(entryName),
            problem: violation.problem, value: violation.value, remedy: violation.remedy)
    }

    package mutating func setVersion(_ text: String, at position: SourcePosition) throws(ManifestError) {
        do { version = try ManifestRules.version(text) } catch { throw self.error(error, at: position) }
    }

    /// Sets the version of a format that has none of its own (a Metalink): it reads as this one.
    package mutating func setVersion(_ version: Int) { self.version = version }

    /// Adds `text` to the manifest's notes, unless it is there already.
    package mutating func note(_ text: String) {
        if !notes.contains(text) { notes.append(text) }
    }

    package mutating func setBase(_ text: String, at position: SourcePosition) throws(ManifestError) {
        do throws(RuleViolation) {
            baseParts = try Self.checkedBase(text, field: "base")
        } catch {
            throw self.error(error, at: position)
        }
        let key = try checkNotListedTwice(text, field: "base", at: position)
        base = text
        baseKey = key
    }

    /// Adds a manifest-level mirror base: checked as `base` is, and not listed twice.
    package mutating func addMirror(_ text: String, field: String, at position: SourcePosition) throws(ManifestError) {
        do throws(RuleViolation) {
            _ = try Self.checkedBase(text, field: field)
        } catch {
            throw self.error(error, at: position)
        }
        let key = try checkNotListedTwice(text, field: field, at: position)
        mirrors.append(text)
        mirrorPositions.append(position)
        mirrorKeys.append(key)
    }

    /// A base or mirror base taken apart: an absolute http(s) URL ending in "/", with no query or fragment.
    private static func checkedBase(_ text: String, field: String) throws(RuleViolation) -> URLRules.Parts {
        let parts = try URLRules.parse(text, field: field)
        guard parts.rest.isEmpty, parts.path.hasSuffix("/"), text.hasSuffix("/") else {
            throw RuleViolation(
                "\(field) must end with \"/\" (entries are fetched at \(field) + path)", value: QuotedValue.quote(text))
        }
        return parts
    }

    /// The base and the mirror bases are distinct, under any spelling (compared as
    /// `URLRules.normalized` spells them): the same one twice would only be asked twice. Returns
    /// `text`'s normal form.
    private func checkNotListedTwice(_ text: String, field: String, at position: SourcePosition) throws(ManifestError) -> String {
        let key = URLRules.normalized(text) ?? text
        let earlier = [base].compactMap { $0 } + mirrors
        guard let index = ([baseKey].compactMap { $0 } + mirrorKeys).firstIndex(of: key) else { return key }
        let spelling = earlier[index] == text ? "" : ", spelled \(QuotedValue.quote(earlier[index]))"
        throw error(
            RuleViolation("\(field) is listed twice (as the base or an earlier mirror\(spelling))", value: QuotedValue.quote(text)),
            at: position)
    }

    /// Adds an entry whose fields have each passed their rule; URLs may still be relative.
    /// Its path is indexed now, and checked against the others in `finish()`.
    package mutating func add(_ entry: consuming ManifestEntry, urlsAreAbsolute: Bool, at position: SourcePosition) {
        if !urlsAreAbsolute { relativeURLEntries.append(entries.count) }
        if !entry.mirrors.isEmpty { mirroredEntries.append(entries.count) }
        entries.append(entry)
        positions.append(position)
        entries.withUnsafeBufferPointer { paths.add($0.count - 1, of: $0) }
    }

    package mutating func finish() throws(ManifestError) -> Manifest {
        guard let version else {
            throw ManifestError(manifest: manifestName, problem: "the manifest has no version (expected \(Manifest.supportedVersion))")
        }
        if base == nil, let position = mirrorPositions.first {
            throw error(RuleViolation("mirror bases need a base: they are alternatives to it"), at: position)
        }
        try resolveURLs()
        try checkMirrorsDiffer()
        try checkPathsAreUnique()
        return Manifest(version: version, base: base, mirrors: mirrors, entries: entries, notes: notes)
    }

    /// Resolves relative URLs against `base`, in entry order. With a base, only the entries
    /// that have a relative URL are visited: no other can change or fail.
    private mutating func resolveURLs() throws(ManifestError) {
        if base != nil {
            for index in relativeURLEntries { try resolveURLs(ofEntry: index) }
            return
        }
        for index in entries.indices {
            if entries[index].url == nil {
                throw error(
                    RuleViolation("has no url, and the manifest has no base to fetch it from"),
                    at: positions[index], entry: index)
            }
            if !relativeURLEntries.isEmpty { try resolveURLs(ofEntry: index) }
        }
    }

    private mutating func resolveURLs(ofEntry index: Int) throws(ManifestError) {
        if let url = entries[index].url, !URLRules.hasScheme(url) {
            entries[index].url = try resolved(url, field: "url", entry: index)
            entries[index].urlIsRelative = true
        }
        for mirror in entries[index].mirrors.indices where !URLRules.hasScheme(entries[index].mirrors[mirror]) {
            entries[index].mirrors[mirror] = try resolved(entries[index].mirrors[mirror], field: "mirror url", entry: index)
        }
    }

    /// An entry's own mirrors differ from its url (or `base` + its path) and from each other, under
    /// any spelling (compared as `URLRules.normalized` spells them), as the mirror bases differ
    /// from `base`: the same URL twice would only be asked twice. Each URL is looked up by its normal
    /// form in a table, so that an entry with a huge list of mirrors costs a pass, not its square.
    private func checkMirrorsDiffer() throws(ManifestError) {
        for index in mirroredEntries {
            let entry = entries[index]
            let primary = entry.url ?? base.map { $0 + URLRules.percentEncodedPath(entry.path) }
            var earlier = primary.map { [$0] } ?? []
            var keys: [String: Int] = [:]
            keys.reserveCapacity(earlier.count + entry.mirrors.count)
            if let primary { keys[URLRules.normalized(primary) ?? primary] = 0 }
            for (number, mirror) in entry.mirrors.enumerated() {
                let key = URLRules.normalized(mirror) ?? mirror
                if let same = keys[key] {
                    let field = switch style {
                    case .xml: "mirror url"
                    case .json: "mirrors[\(number)]"
                    case .metalink: "url"
                    }
                    let what = same > 0 || primary == nil ? "an earlier mirror" : entry.url == nil ? "base + the file's path" : "the file's url"
                    let spelling = earlier[same] == mirror ? "" : ", spelled \(QuotedValue.quote(earlier[same]))"
                    throw error(
                        RuleViolation("\(field) is listed twice (as \(what)\(spelling))", value: QuotedValue.quote(mirror)),
                        at: positions[index], entry: index)
                }
                keys[key] = earlier.count
                earlier.append(mirror)
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
        let problem = entries.withUnsafeBufferPointer { paths.firstProblem(in: $0) }
        switch problem {
        case nil:
            return
        case let .duplicate(index, earlier)?:
            // Canonically equivalent but not the same bytes: one name in NFC and NFD, which look alike.
            let spelling = entries[index].path.utf8.elementsEqual(entries[earlier].path.utf8)
                ? "" : ", in another Unicode normalization form"
            throw error(
                RuleViolation(
                    "path is listed twice (also \(describe(earlier))\(spelling))", value: QuotedValue.quote(entries[index].path)),
                at: positions[index], entry: index)
        case let .directoryOfAnother(index, other)?:
            throw error(
                RuleViolation(
                    "path is a file here but a directory of \(QuotedValue.quote(entries[other].path)) (\(describe(other)))",
                    value: QuotedValue.quote(entries[index].path)),
                at: positions[index], entry: index)
        case let .directorySpelledTwice(index, other, directory)?:
            let spelling = PathIndex.directories(directory, of: entries[index].path)
            throw error(
                RuleViolation(
                    "path's directory \(QuotedValue.quote(spelling)) is spelled in another Unicode normalization form in "
                        + "\(QuotedValue.quote(entries[other].path)) (\(describe(other)))",
                    value: QuotedValue.quote(entries[index].path)),
                at: positions[index], entry: index)
        }
    }

    private func describe(_ index: Int) -> String {
        switch style {
        case .xml, .metalink: return "at \(positions[index])"
        case .json: return "at files[\(index)]"
        }
    }
}
