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
        self.builder = ManifestBuilder(manifestName: feed.input.name, style: .xml)
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
        let expectedName = ["manifest", "file", "mirror"][min(Int(depth), 2)]
        switch depth {
        case 0 where Self.equal(namePointer, expectedName):
            sawRoot = true
            try readManifestAttributes()
        case 1 where Self.equal(namePointer, expectedName):
            let isEmpty = xmlTextReaderIsEmptyElement(reader) == 1
            try startFile()
            if isEmpty { try finishFile() }
        case 2 where Self.equal(namePointer, expectedName):
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

    private mutating func readManifestAttributes() throws(ManifestError) {
        var base: String?
        var version: String?
        try forEachAttribute(of: "manifest", allowed: ["version", "base"]) { index, value in
            if index == 0 { version = value } else { base = value }
        }
        guard let version else { throw failure(RuleViolation("<manifest> is missing its version attribute")) }
        try builder.setVersion(version, at: elementPosition)
        if let base { try builder.setBase(base, at: elementPosition) }
    }

    private mutating func startFile() throws(ManifestError) {
        var path: String?
        var size: String?
        var crc32: String?
        var url: String?
        try forEachAttribute(of: "file", allowed: ["path", "size", "crc32", "url"]) { index, value in
            switch index {
            case 0: path = value
            case 1: size = value
            case 2: crc32 = value
            default: url = value
            }
        }
        guard let path, let size, let crc32 else {
            let missing = path == nil ? "path" : size == nil ? "size" : "crc32"
            throw failure(RuleViolation("missing the required attribute \(missing)"), entry: true)
        }
        do {
            let checkedURL = try url.map { url throws(RuleViolation) in try URLRules.check(url, field: "url") }
            file = PendingFile(
                path: try ManifestRules.path(path), size: try ManifestRules.size(size),
                crc32: try ManifestRules.crc32(crc32), url: checkedURL?.text,
                urlsAreAbsolute: checkedURL?.isAbsolute ?? true, position: elementPosition)
        } catch {
            throw failure(error, entry: true)
        }
    }

    private mutating func readMirror() throws(ManifestError) {
        var url: String?
        try forEachAttribute(of: "mirror", allowed: ["url"]) { _, value in url = value }
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
        builder.add(
            ManifestEntry(path: file.path, size: file.size, crc32: file.crc32, url: file.url, mirrors: file.mirrors),
            urlsAreAbsolute: file.urlsAreAbsolute, at: file.position)
        self.file = nil
    }

    /// Calls `body` with the index in `allowed` and the value of each attribute of the current element.
    private func forEachAttribute(
        of element: String, allowed: [String], _ body: (Int, String) -> Void
    ) throws(ManifestError) {
        defer { xmlTextReaderMoveToElement(reader) }
        while xmlTextReaderMoveToNextAttribute(reader) == 1 {
            let name = xmlTextReaderConstName(reader)
            guard let index = allowed.firstIndex(where: { Self.equal(name, $0) }) else {
                let text = name.map { String(cString: $0) } ?? "?"
                throw failure(
                    RuleViolation("unknown attribute \(text) on <\(element)> (allowed: \(allowed.joined(separator: ", ")))"),
                    entry: element != "manifest")
            }
            body(index, String(cString: xmlTextReaderConstValue(reader)))
        }
    }

    /// Whether libxml2's NUL-terminated name is `expected`, without making a String of it.
    private static func equal(_ name: UnsafePointer<xmlChar>?, _ expected: String) -> Bool {
        guard let name else { return false }
        var expected = expected
        return expected.withUTF8 { bytes in
            for (index, byte) in bytes.enumerated() where name[index] != byte { return false }
            return name[bytes.count] == 0
        }
    }

    private func failure(_ violation: RuleViolation, entry: Bool = false) -> ManifestError {
        ManifestError(
            manifest: feed.input.name, position: elementPosition, entry: entry ? "<file>" : nil,
            problem: violation.problem, value: violation.value)
    }
}
