import CLibXML2

/// Walks the nodes of an XML manifest, enforcing its structure
/// (`<manifest>` holding `<file>`s holding `<mirror>`s) and feeding each
/// complete `<file>` to the builder.
struct XMLManifestWalker {
    private let reader: xmlTextReaderPtr
    private let feed: XMLFeed
    private var builder: ManifestBuilder
    private var sawRoot = false
    private var file: PendingFile?
    private var elementPosition = SourcePosition(line: 1, column: 1)

    /// A `<file>` whose attributes are read and whose `<mirror>`s are still coming.
    private struct PendingFile {
        var path: String
        var size: Int64
        var crc32: UInt32
        var url: String?
        var urlsAreAbsolute: Bool
        var mirrors: [String] = []
        var position: SourcePosition
    }

    private enum NodeType: Int32 {
        case element = 1, text = 3, cdata = 4, entityReference = 5, entity = 6, documentType = 10, endElement = 15
    }

    init(reader: xmlTextReaderPtr, feed: XMLFeed) {
        self.reader = reader
        self.feed = feed
        self.builder = ManifestBuilder(manifestName: feed.input.name, style: .xml, sizeHint: feed.input.sizeHint)
    }

    mutating func run() throws(ManifestError) -> Manifest {
        while true {
            let status = xmlTextReaderRead(reader)
            if status == 0 { break }
            if status < 0 || feed.parserError != nil { throw feed.failure() }
            let depth = xmlTextReaderDepth(reader)
            switch NodeType(rawValue: xmlTextReaderNodeType(reader)) {
            case .element:
                elementPosition = feed.scanner.nextStartTag() ?? elementPosition
                try startElement(depth: depth)
            case .endElement:
                if depth == 1 { try finishFile() }
            case .text, .cdata:
                let text = String(cString: xmlTextReaderConstValue(reader))
                guard text.utf8.allSatisfy(ManifestInput.isBlank) else {
                    throw failure(RuleViolation("text is not allowed here", value: QuotedValue.quote(text)), entry: depth >= 2)
                }
            case .entityReference, .entity, .documentType:
                throw feed.failure()
            case nil:
                continue
            }
        }
        if let inputError = feed.inputError { throw inputError }
        guard sawRoot else {
            throw ManifestError(manifest: feed.input.name, problem: "the document has no <manifest> element")
        }
        return try builder.finish()
    }

    private mutating func startElement(depth: Int32) throws(ManifestError) {
        let namePointer = xmlTextReaderConstName(reader)
        switch depth {
        case 0 where Self.equal(namePointer, "manifest"):
            sawRoot = true
            try readManifestAttributes()
        case 1 where Self.equal(namePointer, "file"):
            try startFile(isEmpty: xmlTextReaderIsEmptyElement(reader) == 1)
        case 2 where Self.equal(namePointer, "mirror"):
            try readMirror()
        default:
            let name = namePointer.map { String(cString: $0) } ?? "?"
            let parent = ["", "<manifest>", "<file>", "<mirror>"][min(Int(depth), 3)]
            let expected = ["<manifest>", "<file>", "<mirror>", "nothing"][min(Int(depth), 3)]
            let place = parent.isEmpty ? "as the root element" : "in \(parent)"
            throw failure(
                RuleViolation("unknown element <\(name)> \(place) (expected \(expected))"), entry: depth >= 2)
        }
    }

    private static let manifestAttributes: [StaticString] = ["version", "base"]
    private static let fileAttributes: [StaticString] = ["path", "size", "crc32", "url"]
    private static let mirrorAttributes: [StaticString] = ["url"]

    private mutating func readManifestAttributes() throws(ManifestError) {
        var base: String?
        var version: String?
        try forEachAttribute(of: "manifest", allowed: Self.manifestAttributes) { index, value in
            if index == 0 { version = String(cString: value) } else { base = String(cString: value) }
        }
        guard let version else { throw failure(RuleViolation("<manifest> is missing its version attribute")) }
        try builder.setVersion(version, at: elementPosition)
        if let base { try builder.setBase(base, at: elementPosition) }
    }

    /// Reads a `<file>`'s attributes; an empty element is complete at once, any other waits for its `<mirror>`s.
    ///
    /// A size of plain digits and a CRC of 8 hex digits are read straight from libxml2's bytes;
    /// any other text becomes a `String` for its rule to name what is wrong, in the same order as ever.
    private mutating func startFile(isEmpty: Bool) throws(ManifestError) {
        var path: String?
        var size: Int64?
        var sizeText: String?
        var crc32: UInt32?
        var crc32Text: String?
        var url: String?
        try forEachAttribute(of: "file", allowed: Self.fileAttributes) { index, value in
            switch index {
            case 0:
                path = String(cString: value)
            case 1:
                size = ManifestRules.plainSize(UnsafeBufferPointer(start: value, count: Int(xmlStrlen(value))))
                sizeText = size == nil ? String(cString: value) : nil
            case 2:
                crc32 = ManifestRules.plainCRC32(UnsafeBufferPointer(start: value, count: Int(xmlStrlen(value))))
                crc32Text = crc32 == nil ? String(cString: value) : nil
            default:
                url = String(cString: value)
            }
        }
        let hasSize = size != nil || sizeText != nil
        let hasCRC32 = crc32 != nil || crc32Text != nil
        guard let path, hasSize, hasCRC32 else {
            let missing = path == nil ? "path" : !hasSize ? "size" : "crc32"
            throw failure(RuleViolation("missing the required attribute \(missing)"), entry: true)
        }
        let pending: PendingFile
        do throws(RuleViolation) {
            let checkedURL = try url.map { url throws(RuleViolation) in try URLRules.check(url, field: "url") }
            let checkedPath = try ManifestRules.path(path)
            if size == nil, let sizeText { size = try ManifestRules.size(sizeText) }
            if crc32 == nil, let crc32Text { crc32 = try ManifestRules.crc32(crc32Text) }
            pending = PendingFile(
                path: checkedPath, size: size!, crc32: crc32!, url: checkedURL?.text,
                urlsAreAbsolute: checkedURL?.isAbsolute ?? true, position: elementPosition)
        } catch {
            throw failure(error, entry: true)
        }
        if isEmpty {
            add(pending)
        } else {
            file = pending
        }
    }

    private mutating func readMirror() throws(ManifestError) {
        var url: String?
        try forEachAttribute(of: "mirror", allowed: Self.mirrorAttributes) { _, value in url = String(cString: value) }
        guard let url else { throw failure(RuleViolation("<mirror> is missing its url attribute"), entry: true) }
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

    private mutating func add(_ file: PendingFile) {
        builder.add(
            ManifestEntry(path: file.path, size: file.size, crc32: file.crc32, url: file.url, mirrors: file.mirrors),
            urlsAreAbsolute: file.urlsAreAbsolute, at: file.position)
    }

    /// Calls `body` with the index in `allowed` and libxml2's NUL-terminated value of each attribute
    /// of the current element; the value lives until the reader moves on.
    private func forEachAttribute(
        of element: String, allowed: [StaticString], _ body: (Int, UnsafePointer<xmlChar>) -> Void
    ) throws(ManifestError) {
        defer { xmlTextReaderMoveToElement(reader) }
        while xmlTextReaderMoveToNextAttribute(reader) == 1 {
            let name = xmlTextReaderConstName(reader)
            guard let index = allowed.firstIndex(where: { Self.equal(name, $0) }) else {
                let text = name.map { String(cString: $0) } ?? "?"
                let names = allowed.map { "\($0)" }.joined(separator: ", ")
                throw failure(
                    RuleViolation("unknown attribute \(text) on <\(element)> (allowed: \(names))"),
                    entry: element != "manifest")
            }
            body(index, xmlTextReaderConstValue(reader))
        }
    }

    /// Whether libxml2's NUL-terminated name is `expected`, without making a String of it.
    @inline(__always)
    private static func equal(_ name: UnsafePointer<xmlChar>?, _ expected: StaticString) -> Bool {
        guard let name else { return false }
        let count = expected.utf8CodeUnitCount
        let bytes = expected.utf8Start
        for index in 0..<count where name[index] != bytes[index] { return false }
        return name[count] == 0
    }

    private func failure(_ violation: RuleViolation, entry: Bool = false) -> ManifestError {
        ManifestError(
            manifest: feed.input.name, position: elementPosition, entry: entry ? "<file>" : nil,
            problem: violation.problem, value: violation.value)
    }
}
