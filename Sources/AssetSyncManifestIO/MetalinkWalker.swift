package import AssetSyncModel

/// Walks the nodes of a Metalink (RFC 5854's version 4, or metalinker.org's 3.0) and feeds each
/// `<file>` to the builder as a manifest entry: its name as the path (under the same rules), its
/// `<size>`, its SHA-256 `<hash>` as the proof (a Metalink gives no CRC-32), and its http(s)
/// `<url>`s in their order of preference as the primary and the mirrors.
///
/// What describes rather than locates or proves a file (publisher, description, signature, …) is
/// passed over; `<pieces>`, `<metaurl>` and urls of other schemes are left out with a note; an
/// element of another namespace is skipped with all it holds, as RFC 5854 asks of foreign markup.
/// An element of the Metalink's own namespace that its version does not define in a `<file>` is
/// refused, as in any manifest.
package struct MetalinkWalker {
    /// The Metalink versions read, told apart by the root element's namespace.
    package enum Version: Sendable {
        case four, three

        /// The version whose namespace is `namespace`; nil for any other.
        init?(namespace: String) {
            switch namespace {
            case "urn:ietf:params:xml:ns:metalink": self = .four
            case "http://www.metalinker.org/": self = .three
            default: return nil
            }
        }
    }

    /// The longest text a value element (`<size>`, `<hash>`, `<url>`) may hold.
    static let maximumValueBytes = URLRules.maximumBytes

    private let stream: XMLNodeStream
    private let manifestName: String
    private let version: Version
    private let namespace: String
    private var builder: ManifestBuilder
    private var batch: XMLNodeBatch
    private var elementPosition = SourcePosition(line: 1, column: 1)
    /// The local names of the open elements that are walked into, the root first: `path[d]` is at depth d.
    private var path: [String] = []
    /// The depth of the element skipped with everything in it; nil while none is.
    private var skipping: Int32?
    /// The value element whose text is being gathered.
    private var value: PendingValue?
    private var file: PendingFile?

    /// What an element of the Metalink's namespace is to the walker.
    private enum Role {
        /// Walked into: its children are read.
        case container
        case file
        case value(ValueKind)
        /// Skipped with what it holds.
        case ignored
        /// Skipped with what it holds, and noted once.
        case noted(String)
        case unknown
    }

    private enum ValueKind { case size, hash, url }

    private struct PendingValue {
        var kind: ValueKind
        var name: String
        var depth: Int32
        /// The `type` of a `<hash>` or of a v3 `<url>`, lowercased.
        var type: String?
        /// The v4 `priority` (lower first) or v3 `preference` (higher first) of a `<url>`, as a rank: lower first.
        var rank: Int
        var text: [UInt8] = []
    }

    /// A `<file>` whose children are still coming.
    private struct PendingFile {
        var name: String
        var path: String
        var size: Int64?
        var sha256: SHA256Digest?
        /// The usable urls with their rank and document order.
        var urls: [(rank: Int, order: Int, url: String)] = []
        var position: SourcePosition
    }

    /// `batch` holds the first nodes, the root element `<metalink>` of `version` first.
    package init(stream: XMLNodeStream, input: ManifestInput, version: Version, namespace: String, first batch: consuming XMLNodeBatch) {
        self.stream = stream
        self.manifestName = input.name
        self.version = version
        self.namespace = namespace
        self.builder = ManifestBuilder(manifestName: input.name, style: .metalink, sizeHint: input.sizeHint)
        self.batch = batch
        builder.setVersion(Manifest.supportedVersion)
    }

    /// The Metalink version of a document whose root element is `node`; nil when the root is not
    /// named `metalink`. A `metalink` root of another namespace is refused.
    static func version(ofRoot node: XMLNodeBatch.Node, in batch: XMLNodeBatch, manifest: String) throws(ManifestError) -> (Version, String)? {
        guard node.kind == .element, node.depth == 0, let name = node.text, localName(batch.string(name)) == "metalink" else { return nil }
        let namespace = node.namespace.map { batch.string($0) } ?? ""
        guard let version = Version(namespace: namespace) else {
            throw ManifestError(
                manifest: manifest, position: node.position,
                problem: "<metalink> is in the namespace \(QuotedValue.quote(namespace)), which is neither Metalink 4's "
                    + "(urn:ietf:params:xml:ns:metalink) nor Metalink 3's (http://www.metalinker.org/)")
        }
        return (version, namespace)
    }

    package mutating func run() throws(ManifestError) -> Manifest {
        while true {
            for index in batch.nodes.indices {
                let node = batch.nodes[index]
                switch node.kind {
                case .element:
                    elementPosition = node.position ?? elementPosition
                    try startElement(node)
                    if node.isEmpty { try endElement(depth: node.depth) }
                case .endElement:
                    try endElement(depth: node.depth)
                case .text:
                    try take(text: node)
                }
            }
            switch batch.end {
            case nil:
                stream.next(&batch)
            case .failed(let error)?:
                throw error
            case .finished(let inputError)?:
                if let inputError { throw inputError }
                return try builder.finish()
            }
        }
    }

    private mutating func startElement(_ node: XMLNodeBatch.Node) throws(ManifestError) {
        let depth = node.depth
        if let skipping, depth > skipping { return }
        let name = Self.localName(node.text.map { batch.string($0) } ?? "")
        if depth == 0 {
            path = [name]
            return
        }
        guard node.namespace.map({ batch.string($0) }) == namespace else {
            skipping = depth
            return
        }
        if let value {
            throw failure(RuleViolation("<\(name)> is not allowed in <\(value.name)>, which holds only text"), entry: true)
        }
        switch role(of: name) {
        case .container:
            path.append(name)
        case .file:
            try startFile(node)
            path.append(name)
        case .value(let kind):
            value = try startValue(kind, name: name, node: node)
            path.append(name)
        case .ignored:
            skipping = depth
        case .noted(let note):
            builder.note(note)
            skipping = depth
        case .unknown:
            throw failure(RuleViolation("unknown element <\(name)> in <\(path.last!)> of a Metalink \(version == .four ? "4" : "3")"), entry: file != nil)
        }
    }

    /// What the element `name` is under the open elements `path`, by the Metalink's version.
    private func role(of name: String) -> Role {
        let parent = path.last!
        let inFile = file != nil
        switch version {
        case .four:
            switch parent {
            case "metalink": return name == "file" ? .file : .ignored
            case "file" where inFile:
                switch name {
                case "size": return .value(.size)
                case "hash": return .value(.hash)
                case "url": return .value(.url)
                case "pieces": return .noted(Self.piecesNote)
                case "metaurl": return .noted(Self.metaurlNote)
                case "copyright", "description", "identity", "language", "logo", "os", "publisher", "signature", "version": return .ignored
                default: return .unknown
                }
            default: return .unknown
            }
        case .three:
            switch parent {
            case "metalink": return name == "files" ? .container : .ignored
            case "files": return name == "file" ? .file : .unknown
            case "file" where inFile:
                switch name {
                case "size": return .value(.size)
                case "verification", "resources": return .container
                // MirrorCache writes its version 3 hashes as version 4 does, in <file> itself.
                case "hash": return .value(.hash)
                case "pieces": return .noted(Self.piecesNote)
                case "identity", "version", "description", "license", "publisher", "os", "language", "mimetype", "copyright", "tags",
                    "releasedate", "changelog", "logo", "screenshot", "upgrade", "relations":
                    return .ignored
                default: return .unknown
                }
            case "verification":
                switch name {
                case "hash": return .value(.hash)
                case "pieces": return .noted(Self.piecesNote)
                case "signature": return .ignored
                default: return .unknown
                }
            case "resources": return name == "url" ? .value(.url) : .unknown
            default: return .unknown
            }
        }
    }

    static let piecesNote = "a Metalink's <pieces> are not used: each file is proven whole by its SHA-256"
    static let metaurlNote = "a Metalink's <metaurl>s (BitTorrent and other metadata) are not used: only its http and https urls are"
    static let otherSchemeNote = "a Metalink's urls other than http and https (ftp, rsync, BitTorrent) are left out"

    private mutating func startFile(_ node: XMLNodeBatch.Node) throws(ManifestError) {
        guard let name = attribute("name", of: node) else {
            throw failure(RuleViolation("<file> is missing its name attribute"), entry: false)
        }
        let checked: String
        do { checked = try ManifestRules.path(name) } catch { throw failure(error, entry: true, name: name) }
        file = PendingFile(name: name, path: checked, position: elementPosition)
    }

    private func startValue(_ kind: ValueKind, name: String, node: XMLNodeBatch.Node) throws(ManifestError) -> PendingValue {
        var value = PendingValue(kind: kind, name: name, depth: node.depth, type: attribute("type", of: node)?.lowercased(), rank: 0)
        guard kind == .url else { return value }
        switch version {
        case .four:
            guard let text = attribute("priority", of: node) else {
                value.rank = Int.max  // after every url that has one
                break
            }
            guard let priority = Int(text), (1...999_999).contains(priority) else {
                throw failure(RuleViolation("priority must be a whole number from 1 to 999999", value: QuotedValue.quote(text)), entry: true)
            }
            value.rank = priority
        case .three:
            guard let text = attribute("preference", of: node) else {
                value.rank = Int.max  // after every url that has one
                break
            }
            // The specification's range is 0 to 100; generators that count down past it still mean an order.
            guard let preference = Int(text), preference > Int.min else {
                throw failure(RuleViolation("preference must be a whole number", value: QuotedValue.quote(text)), entry: true)
            }
            value.rank = -preference
        }
        return value
    }

    private mutating func take(text node: XMLNodeBatch.Node) throws(ManifestError) {
        if let skipping, node.depth > skipping { return }
        let range = node.text!
        if var value, node.depth == value.depth + 1 {
            guard value.text.count + range.count <= Self.maximumValueBytes else {
                throw failure(RuleViolation("<\(value.name)> holds more than \(Self.maximumValueBytes) bytes"), entry: true)
            }
            self.value = nil
            batch.withBytes(range) { value.text.append(contentsOf: $0) }
            self.value = value
            return
        }
        guard batch.withBytes(range, { $0.allSatisfy(ManifestInput.isBlank) }) else {
            let text = batch.string(range)
            throw failure(RuleViolation("text is not allowed here", value: QuotedValue.quote(text)), entry: file != nil)
        }
    }

    private mutating func endElement(depth: Int32) throws(ManifestError) {
        if let skipping {
            if depth == skipping { self.skipping = nil }
            if depth >= skipping { return }
        }
        guard depth > 0, Int(depth) < path.count else { return }
        let name = path.removeLast()
        if let value, value.depth == depth {
            self.value = nil
            try finish(value)
        } else if name == "file", file != nil, depth == (version == .four ? 1 : 2) {
            try finishFile()
        }
    }

    private mutating func finish(_ value: PendingValue) throws(ManifestError) {
        guard var file else { return }
        self.file = nil
        defer { self.file = file }
        let text = String(decoding: value.text, as: UTF8.self).trimmingBlanks()
        switch value.kind {
        case .size:
            guard file.size == nil else { throw failure(RuleViolation("<size> is given twice"), entry: true, name: file.name) }
            do { file.size = try ManifestRules.size(text) } catch { throw failure(error, entry: true, name: file.name) }
        case .hash:
            guard value.type == "sha-256" || value.type == "sha256" else { return }
            guard file.sha256 == nil else { throw failure(RuleViolation("the SHA-256 <hash> is given twice"), entry: true, name: file.name) }
            do { file.sha256 = try ManifestRules.sha256(text) } catch { throw failure(error, entry: true, name: file.name) }
        case .url:
            let scheme = text.prefix { $0 != ":" }.lowercased()
            guard scheme == "http" || scheme == "https", value.type.map({ $0 == "http" || $0 == "https" }) ?? true else {
                builder.note(Self.otherSchemeNote)
                return
            }
            do {
                let checked = try URLRules.check(text, field: "url")
                file.urls.append((value.rank, file.urls.count, checked.text))
            } catch {
                throw failure(error, entry: true, name: file.name)
            }
        }
    }

    private mutating func finishFile() throws(ManifestError) {
        guard let file else { return }
        self.file = nil
        func refuse(_ problem: String) -> ManifestError {
            ManifestError(
                manifest: manifestName, position: file.position, entry: "<file> " + QuotedValue.quote(file.name), problem: problem)
        }
        guard let size = file.size else { throw refuse("has no <size>; a Metalink must give each file's size") }
        guard let sha256 = file.sha256 else {
            throw refuse("has no SHA-256 <hash>; a Metalink's files are proven by their SHA-256, which it must give")
        }
        let urls = file.urls.sorted { ($0.rank, $0.order) < ($1.rank, $1.order) }.map(\.url)
        guard let primary = urls.first else { throw refuse("has no http or https <url> to fetch it from") }
        builder.add(
            ManifestEntry(path: file.path, size: size, crc32: nil, sha256: sha256, url: primary, mirrors: Array(urls.dropFirst())),
            urlsAreAbsolute: true, at: file.position)
    }

    /// The value of `node`'s attribute `name` (unprefixed), if it has one.
    private func attribute(_ name: String, of node: XMLNodeBatch.Node) -> String? {
        for index in node.attributes {
            let attribute = batch.attributes[index]
            if let key = attribute.name, batch.string(key) == name { return batch.string(attribute.value) }
        }
        return nil
    }

    /// A qualified name without its prefix.
    private static func localName(_ name: String) -> String {
        guard let colon = name.lastIndex(of: ":") else { return name }
        return String(name[name.index(after: colon)...])
    }

    /// An error at the current element, about the file being read when `entry` (named `name`, or the pending file's name).
    private func failure(_ violation: RuleViolation, entry: Bool, name: String? = nil) -> ManifestError {
        let fileName = name ?? file?.name
        return ManifestError(
            manifest: manifestName, position: elementPosition,
            entry: entry ? "<file>" + (fileName.map { " " + QuotedValue.quote($0) } ?? "") : nil,
            problem: violation.problem, value: violation.value, remedy: violation.remedy)
    }
}

extension String {
    /// The text without the XML white space (space, tab, CR, LF) at either end.
    fileprivate func trimmingBlanks() -> String {
        let blank: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" || $0 == "\r\n" }
        guard let first = firstIndex(where: { !blank($0) }), let last = lastIndex(where: { !blank($0) }) else { return "" }
        return String(self[first...last])
    }
}
