import CLibXML2

/// Reads an XML manifest with libxml2's streaming `xmlTextReader`: one node
/// at a time, never a whole tree; no network, no DTD, no entity substitution.
enum XMLManifestReader {
    private static let options = Int32(
        XML_PARSE_NONET.rawValue | XML_PARSE_NOERROR.rawValue | XML_PARSE_NOWARNING.rawValue
            | XML_PARSE_NOBLANKS.rawValue | XML_PARSE_COMPACT.rawValue)

    private static let parserReady: Void = xmlInitParser()

    static func read(_ input: ManifestInput) throws(ManifestError) -> Manifest {
        _ = parserReady
        let feed = XMLFeed(input: input)
        let context = Unmanaged.passUnretained(feed).toOpaque()
        guard let reader = xmlReaderForIO(
            { context, buffer, length in
                Unmanaged<XMLFeed>.fromOpaque(context!).takeUnretainedValue().fill(buffer, Int(length))
            },
            nil, context, input.name, "UTF-8", options)
        else {
            throw ManifestError(manifest: input.name, problem: "libxml2 could not create a reader")
        }
        defer { xmlFreeTextReader(reader) }
        xmlTextReaderSetStructuredErrorHandler(
            reader,
            { context, error in
                guard let context, let error else { return }
                Unmanaged<XMLFeed>.fromOpaque(context).takeUnretainedValue().record(error.pointee)
            },
            context)
        var walker = XMLManifestWalker(reader: reader, feed: feed)
        return try withExtendedLifetime(feed) { () throws(ManifestError) -> Manifest in try walker.run() }
    }
}

/// What libxml2 pulls its bytes through, and where its errors are kept.
final class XMLFeed {
    let input: ManifestInput
    var scanner = XMLMarkupScanner()
    var inputError: ManifestError?
    var parserError: (message: String, position: SourcePosition)?

    init(input: ManifestInput) { self.input = input }

    func fill(_ buffer: UnsafeMutablePointer<CChar>?, _ length: Int) -> Int32 {
        guard let buffer, inputError == nil, scanner.declaration == nil else { return -1 }
        do {
            let target = UnsafeMutableRawBufferPointer(start: buffer, count: length)
            let count = try input.read(into: target)
            guard scanner.scan(UnsafeRawBufferPointer(rebasing: target[0..<count])) else { return -1 }
            return Int32(count)
        } catch {
            inputError = error
            return -1
        }
    }

    func record(_ error: xmlError) {
        guard parserError == nil, error.level.rawValue >= XML_ERR_ERROR.rawValue else { return }
        var message = error.message.map { String(cString: $0) } ?? "libxml2 error \(error.code)"
        while message.last?.isWhitespace == true { message.removeLast() }
        parserError = (message, SourcePosition(line: Int(error.line), column: max(Int(error.int2), 1)))
    }

    /// The error that stopped the reader, in the order of how much it explains.
    func failure() -> ManifestError {
        if let position = scanner.declaration {
            return ManifestError(
                manifest: input.name, position: position,
                problem: "a DOCTYPE (or any other markup declaration) is not allowed; "
                    + "manifests may use only XML's predefined entities and character references")
        }
        if let inputError { return inputError }
        if let (message, position) = parserError {
            return ManifestError(manifest: input.name, position: position, problem: "not well-formed XML: \(message)")
        }
        return ManifestError(manifest: input.name, problem: "not well-formed XML")
    }
}
