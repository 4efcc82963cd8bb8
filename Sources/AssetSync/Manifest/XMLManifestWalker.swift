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
        let name = String(cString: xmlTextReaderConstName(reader))
        let isEmpty = xmlTextReaderIsEmptyElement(reader) == 1
        switch (depth, name) {
        case (0, "manifest"):
            sawRoot = true
            try readManifestAttributes()
        case (1, "file"):
            try startFile()
            if isEmpty { try finishFile() }
        case (2, "mirror"):
            try readMirror()
        default:
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
        try forEachAttribute(of: "manifest", allowed: "version, base") { name, value in
            switch name {
            case "version": version = value
            case "base": base = value
            default: return false
            }
            return true
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
        try forEachAttribute(of: "file", allowed: "path, size, crc32, url") { name, value in
            switch name {
            case "path": path = value
            case "size": size = value
            case "crc32": crc32 = value
            case "url": url = value
            default: return false
            }
            return true
        }
        for (name, value) in [("path", path), ("size", size), ("crc32", crc32)] where value == nil {
            throw failure(RuleViolation("missing the required attribute \(name)"), entry: true)
        }
        do {
            let checkedURL = try url.map { url throws(RuleViolation) in try URLRules.check(url, field: "url") }
            file = PendingFile(
                path: try ManifestRules.path(path!), size: try ManifestRules.size(size!),
                crc32: try ManifestRules.crc32(crc32!), url: checkedURL?.text,
                urlsAreAbsolute: checkedURL?.isAbsolute ?? true, position: elementPosition)
        } catch {
            throw failure(error, entry: true)
        }
    }

    private mutating func readMirror() throws(ManifestError) {
        var url: String?
        try forEachAttribute(of: "mirror", allowed: "url") { name, value in
            guard name == "url" else { return false }
            url = value
            return true
        }
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

    /// Calls `body` with each attribute of the current element; `body` returns false for an unknown one.
    private func forEachAttribute(
        of element: String, allowed: String, _ body: (String, String) -> Bool
    ) throws(ManifestError) {
        defer { xmlTextReaderMoveToElement(reader) }
        while xmlTextReaderMoveToNextAttribute(reader) == 1 {
            let name = String(cString: xmlTextReaderConstName(reader))
            let value = String(cString: xmlTextReaderConstValue(reader))
            if !body(name, value) {
                throw failure(
                    RuleViolation("unknown attribute \(name) on <\(element)> (allowed: \(allowed))"),
                    entry: element != "manifest")
            }
        }
    }

    private func failure(_ violation: RuleViolation, entry: Bool = false) -> ManifestError {
        ManifestError(
            manifest: feed.input.name, position: elementPosition, entry: entry ? "<file>" : nil,
            problem: violation.problem, value: violation.value)
    }
}
