package import AssetSyncModel
package import CLibXML2
import Glibc

/// Reads an XML manifest with libxml2's streaming `xmlTextReader` (run by
/// `XMLNodeStream`): node by node, never a whole tree; no network, no DTD, no
/// entity substitution. The root element decides the format: `<metalink>` of Metalink 4's or
/// 3's namespace is walked by `MetalinkWalker`, anything else by `XMLManifestWalker`.
package enum XMLManifestReader {
    private static let parserReady: Void = xmlInitParser()

    /// Initialises libxml2 now rather than on the first read (see `ManifestReader.prepare`).
    package static func prepare() { _ = parserReady }

    package static func read(_ input: ManifestInput) throws(ManifestError) -> Manifest {
        _ = parserReady
        let stream = XMLNodeStream(input: input)
        defer { stream.close() }
        var batch = XMLNodeBatch(capacity: XMLNodeStream.batchNodes)
        stream.next(&batch)
        if let root = batch.nodes.first, let (version, namespace) = try MetalinkWalker.version(ofRoot: root, in: batch, manifest: input.name) {
            var walker = MetalinkWalker(stream: stream, input: input, version: version, namespace: namespace, first: batch)
            return try walker.run()
        }
        var walker = XMLManifestWalker(stream: stream, input: input, first: batch)
        return try walker.run()
    }
}

/// What libxml2 pulls its bytes through, and where its errors are kept.
package final class XMLFeed {
    package let input: ManifestInput
    var scanner: XMLMarkupScanner
    var inputError: ManifestError?
    var parserError: (message: String, position: SourcePosition)?

    package init(input: ManifestInput, textRoots: [String] = ["metalink"]) {
        self.input = input
        scanner = XMLMarkupScanner(textRoots: textRoots)
    }

    /// The bytes held back from the last chunk (see `XMLMarkupScanner.heldBack`).
    private var carry: [UInt8] = []
    private var atStart = true

    /// libxml2's read callback: the next decompressed bytes, scanned and with comments blanked.
    func fill(_ buffer: UnsafeMutablePointer<CChar>?, _ length: Int) -> Int32 {
        guard let buffer, length > 2, inputError == nil, scanner.problem == nil else { return -1 }
        let target = UnsafeMutableRawBufferPointer(start: buffer, count: length)
        while true {
            let carried = carry.count
            carry.withUnsafeBytes { target.copyMemory(from: $0) }
            carry.removeAll()
            let got: Int
            do {
                got = try input.read(into: UnsafeMutableRawBufferPointer(rebasing: target[carried...]))
            } catch {
                inputError = error
                return -1
            }
            if got == 0 { return Int32(carried) }  // the end: release what was held back
            var length = carried + got
            if atStart {
                atStart = false
                // libxml2 reads with the encoding forced to UTF-8, and then takes a byte order mark for text.
                if length >= 3, target[0] == 0xEF, target[1] == 0xBB, target[2] == 0xBF {
                    memmove(target.baseAddress!, target.baseAddress! + 3, length - 3)
                    length -= 3
                }
            }
            let chunk = UnsafeMutableRawBufferPointer(rebasing: target[0..<length])
            guard scanner.scan(chunk, carried: carried) else { return -1 }
            let release = chunk.count - scanner.heldBack
            carry = Array(chunk[release...])
            if release > 0 { return Int32(release) }
        }
    }

    package func record(_ error: xmlError) {
        guard parserError == nil, error.level.rawValue >= XML_ERR_ERROR.rawValue else { return }
        let raw = error.message.map { String(cString: $0) } ?? "libxml2 error \(error.code)"
        let message = raw.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        parserError = (message, SourcePosition(line: Int(error.line), column: max(Int(error.int2), 1)))
    }

    /// The error that stopped the reader, in the order of how much it explains.
    package func failure() -> ManifestError {
        if let (kind, position) = scanner.problem {
            let problem: String
            switch kind {
            case .declaration:
                problem = "a DOCTYPE (or any other markup declaration) is not allowed; "
                    + "manifests may use only XML's predefined entities and character references"
            case .text:
                problem = "text is not allowed here; a manifest holds only elements and attributes"
            case .cdata:
                problem = "a CDATA section is not allowed; write its text with character references"
            case .longAttribute:
                problem = "an attribute value is longer than \(XMLMarkupScanner.maximumAttributeBytes) bytes"
            case .longBlankRun:
                let what = scanner.allowsText ? "text, white space and comments" : "white space and comments"
                problem = "more than \(XMLMarkupScanner.maximumBlankRun) bytes of \(what) in a row"
            }
            return ManifestError(manifest: input.name, position: position, problem: problem)
        }
        if let inputError { return inputError }
        if let (message, position) = parserError {
            return ManifestError(manifest: input.name, position: position, problem: "not well-formed XML: \(message)")
        }
        return ManifestError(manifest: input.name, problem: "not well-formed XML")
    }
}

extension XMLManifestReader {
    static var libxml2Version: String { LIBXML_DOTTED_VERSION }
}
