package import AssetSyncModel

/// Walks the nodes of an XML manifest, enforcing its structure (`<manifest>` holding its
/// `<mirror base>`s, then `<file>`s holding their `<mirror url>`s) and feeding each complete
/// `<file>` to the builder.
package struct XMLManifestWalker {
    private let stream: XMLNodeStream
    private let manifestName: String
    private var builder: ManifestBuilder
    private var batch: XMLNodeBatch
    private var sawRoot = false
    /// A `<file>` came: a manifest-level `<mirror base>` may no longer follow.
    private var sawFile = false
    private var file: PendingFile?
    private var elementPosition = SourcePosition(line: 1, column: 1)

    /// A `<file>` whose attributes are read and whose `<mirror>`s are still coming.
    private struct PendingFile {
        var path: String
        var size: Int64
        var crc32: UInt32?
        var sha256: SHA256Digest?
        var url: String?
        var urlsAreAbsolute: Bool
        var mirrors: [String] = []
        var chunks: ChunkList?
        var position: SourcePosition
    }

    /// `batch` holds the first nodes of `stream`.
    package init(stream: XMLNodeStream, input: ManifestInput, first batch: consuming XMLNodeBatch) {
        self.stream = stream
        self.batch = batch
        self.manifestName = input.name
        self.builder = ManifestBuilder(manifestName: input.name, style: .xml, sizeHint: input.sizeHint)
    }

    package mutating func run() throws(ManifestError) -> Manifest {
        while true {
            for index in batch.nodes.indices {
                let node = batch.nodes[index]
                switch node.kind {
                case .element:
                    elementPosition = node.position ?? elementPosition
                    try startElement(node)
                case .endElement:
                    if node.depth == 1 { try finishFile() }
                case .text:
                    let isBlank = batch.withBytes(node.text!) { $0.allSatisfy(ManifestInput.isBlank) }
                    guard isBlank else {
                        let text = batch.string(node.text!)
                        throw failure(
                            RuleViolation("text is not allowed here", value: QuotedValue.quote(text)), entry: node.depth >= 2)
                    }
                }
            }
            switch batch.end {
            case nil:
                stream.next(&batch)
            case .failed(let error)?:
                throw error
            case .finished(let inputError)?:
                if let inputError { throw inputError }
                guard sawRoot else {
                    throw ManifestError(manifest: manifestName, problem: "the document has no <manifest> element")
                }
                return try builder.finish()
            }
        }
    }

    private mutating func startElement(_ node: XMLNodeBatch.Node) throws(ManifestError) {
        let depth = node.depth
        switch depth {
        case 0 where isName(node, "manifest"):
            sawRoot = true
            try readManifestAttributes(node)
        case 1 where isName(node, "file"):
            sawFile = true
            try startFile(node)
        case 1 where isName(node, "mirror"):
            try readManifestMirror(node)
        case 2 where isName(node, "mirror") && file != nil:
            try readMirror(node)
        default:
            let name = node.text.map { batch.string($0) } ?? "?"
            let inFile = depth == 2 && file != nil
            let parent = ["", "<manifest>", inFile ? "<file>" : "<mirror>", "<mirror>"][min(Int(depth), 3)]
            let expected = ["<manifest>", "<file> or <mirror>", inFile ? "<mirror>" : "nothing", "nothing"][min(Int(depth), 3)]
            let place = parent.isEmpty ? "as the root element" : "in \(parent)"
            throw failure(
                RuleViolation("unknown element <\(name)> \(place) (expected \(expected))"), entry: depth >= 2 && file != nil)
        }
    }

    private static let manifestAttributes: [StaticString] = ["version", "base"]
    private static let fileAttributes: [StaticString] = ["path", "size", "crc32", "url", "sha256", "chunks"]
    private static let mirrorAttributes: [StaticString] = ["url"]
    private static let manifestMirrorAttributes: [StaticString] = ["base"]

    private mutating func readManifestAttributes(_ node: XMLNodeBatch.Node) throws(ManifestError) {
        let values = try attributes(of: node, named: "manifest", allowed: Self.manifestAttributes)
        guard let version = values[0].map({ batch.string($0) }) else {
            throw failure(RuleViolation("<manifest> is missing its version attribute"))
        }
        try builder.setVersion(version, at: elementPosition)
        if let base = values[1].map({ batch.string($0) }) { try builder.setBase(base, at: elementPosition) }
    }

    /// Reads a `<mirror base>` under `<manifest>`. They come before the first `<file>`, so that a
    /// reader of the manifest sees every place its files are served from at the top.
    private mutating func readManifestMirror(_ node: XMLNodeBatch.Node) throws(ManifestError) {
        guard !sawFile else {
            throw failure(RuleViolation("<mirror base> must come before the first <file> (a mirror of one file goes inside it)"))
        }
        let values = try attributes(of: node, named: "mirror", allowed: Self.manifestMirrorAttributes, entry: false)
        guard let base = values[0].map({ batch.string($0) }) else {
            throw failure(RuleViolation("<mirror> under <manifest> is missing its base attribute"))
        }
        try builder.addMirror(base, field: "mirror base", at: elementPosition)
    }

    /// Reads a `<file>`'s attributes; an empty element is complete at once, any other waits for its `<mirror>`s.
    ///
    /// A size of plain digits and a CRC of 8 hex digits are read straight from the bytes;
    /// any other text becomes a `String` for its rule to name what is wrong, in the same order as ever.
    private mutating func startFile(_ node: XMLNodeBatch.Node) throws(ManifestError) {
        let values = try attributes(of: node, named: "file", allowed: Self.fileAttributes)
        let path = values[0].map { batch.string($0) }
        var size = values[1].flatMap { batch.withBytes($0) { ManifestRules.plainSize($0) } }
        let sizeText = size == nil ? values[1].map { batch.string($0) } : nil
        var crc32 = values[2].flatMap { batch.withBytes($0) { ManifestRules.plainCRC32($0) } }
        let crc32Text = crc32 == nil ? values[2].map { batch.string($0) } : nil
        let url = values[3].map { batch.string($0) }
        let sha256Text = values[4].map { batch.string($0) }
        let hasSize = size != nil || sizeText != nil
        let hasChecksum = crc32 != nil || crc32Text != nil || sha256Text != nil
        guard let path, hasSize, hasChecksum else {
            let missing = path == nil ? "path" : !hasSize ? "size" : "crc32 (or sha256)"
            throw failure(RuleViolation("missing the required attribute \(missing)"), entry: true)
        }
        let pending: PendingFile
        do throws(RuleViolation) {
            let checkedURL = try url.map { url throws(RuleViolation) in try URLRules.check(url, field: "url") }
            let checkedPath = try ManifestRules.path(path)
            if size == nil, let sizeText { size = try ManifestRules.size(sizeText) }
            if crc32 == nil, let crc32Text { crc32 = try ManifestRules.crc32(crc32Text) }
            let sha256 = try sha256Text.map { text throws(RuleViolation) in try ManifestRules.sha256(text) }
            let chunks = try values[5].map { range throws(RuleViolation) in try ChunkList(manifestText: batch.string(range), size: size!) }
            pending = PendingFile(
                path: checkedPath, size: size!, crc32: crc32, sha256: sha256, url: checkedURL?.text,
                urlsAreAbsolute: checkedURL?.isAbsolute ?? true, chunks: chunks, position: elementPosition)
        } catch {
            throw failure(error, entry: true)
        }
        if node.isEmpty {
            add(pending)
        } else {
            file = pending
        }
    }

    private mutating func readMirror(_ node: XMLNodeBatch.Node) throws(ManifestError) {
        let values = try attributes(of: node, named: "mirror", allowed: Self.mirrorAttributes, entry: true)
        guard let url = values[0].map({ batch.string($0) }) else { throw failure(RuleViolation("<mirror> is missing its url attribute"), entry: true) }
        do {
            let checked = try URLRules.check(url, field: "mirror url")
            file?.mirrors.append(checked.text)
            if !checked.isAbsolute { file?.urlsAreAbsolute = false }
        } catch {
            throw failure(error, entry: true)
        }
    }

    private mutating func finishFile() throws(ManifestError) {
        guard let file else { return }
        self.file = nil
        add(file)
    }

    private mutating func add(_ file: consuming PendingFile) {
        builder.add(
            ManifestEntry(
                path: file.path, size: file.size, crc32: file.crc32, sha256: file.sha256, url: file.url, mirrors: file.mirrors,
                chunks: file.chunks),
            urlsAreAbsolute: file.urlsAreAbsolute, at: file.position)
    }

    /// The values of a node's attributes, by their index in the allowed names.
    private struct AttributeValues {
        private var values: (Range<Int>?, Range<Int>?, Range<Int>?, Range<Int>?, Range<Int>?, Range<Int>?)

        init() { values = (nil, nil, nil, nil, nil, nil) }

        subscript(index: Int) -> Range<Int>? {
            get {
                switch index {
                case 0: values.0
                case 1: values.1
                case 2: values.2
                case 3: values.3
                case 4: values.4
                default: values.5
                }
            }
            set {
                switch index {
                case 0: values.0 = newValue
                case 1: values.1 = newValue
                case 2: values.2 = newValue
                case 3: values.3 = newValue
                case 4: values.4 = newValue
                default: values.5 = newValue
                }
            }
        }
    }

    /// Where the value of each of `node`'s attributes lies, by its index in `allowed` (at most
    /// six names); refuses the first attribute not allowed, naming it on `<element>`.
    private func attributes(
        of node: XMLNodeBatch.Node, named element: String, allowed: [StaticString], entry: Bool? = nil
    ) throws(ManifestError) -> AttributeValues {
        var values = AttributeValues()
        for attribute in node.attributes {
            let name = batch.attributes[attribute].name
            var found: Int?
            if let name {
                for index in allowed.indices where batch.withBytes(name, Self.equals(allowed[index])) {
                    found = index
                    break
                }
            }
            guard let index = found else {
                let text = name.map { batch.string($0) } ?? "?"
                let names = allowed.map { "\($0)" }.joined(separator: ", ")
                throw failure(
                    RuleViolation("unknown attribute \(text) on <\(element)> (allowed: \(names))"),
                    entry: entry ?? (element != "manifest"))
            }
            values[index] = batch.attributes[attribute].value
        }
        return values
    }

    /// Whether an element's name is `expected`.
    private func isName(_ node: XMLNodeBatch.Node, _ expected: StaticString) -> Bool {
        guard let name = node.text else { return false }
        return batch.withBytes(name, Self.equals(expected))
    }

    /// A test of whether bytes are `expected`, without making a String of them.
    @inline(__always)
    private static func equals(_ expected: StaticString) -> (UnsafeBufferPointer<UInt8>) -> Bool {
        { bytes in
            bytes.count == expected.utf8CodeUnitCount
                && bytes.elementsEqual(UnsafeBufferPointer(start: expected.utf8Start, count: expected.utf8CodeUnitCount))
        }
    }

    private func failure(_ violation: RuleViolation, entry: Bool = false) -> ManifestError {
        ManifestError(
            manifest: manifestName, position: elementPosition, entry: entry ? "<file>" : nil,
            problem: violation.problem, value: violation.value, remedy: violation.remedy)
    }
}
