import AssetSyncModel
import CLibXML2

/// libxml2's streaming `xmlTextReader` over a manifest's bytes (through an
/// `XMLFeed`), turning its nodes into `XMLNodeBatch`es. It lives on one
/// thread: whichever calls `read(into:limit:)`.
package final class XMLNodeReader {
    private static let options = Int32(
        XML_PARSE_NONET.rawValue | XML_PARSE_NOERROR.rawValue | XML_PARSE_NOWARNING.rawValue
            | XML_PARSE_NOBLANKS.rawValue | XML_PARSE_COMPACT.rawValue)

    private let feed: XMLFeed
    /// Nil when libxml2 could not create one; the first read then reports it.
    private let reader: xmlTextReaderPtr?

    private enum NodeType: Int32 {
        case element = 1, text = 3, cdata = 4, entityReference = 5, entity = 6, documentType = 10, endElement = 15
    }

    /// `xmlInitParser()` must have run, on the main thread.
    /// - Parameter textRoots: as `XMLMarkupScanner`'s.
    package init(input: ManifestInput, textRoots: [String] = ["metalink"]) {
        feed = XMLFeed(input: input, textRoots: textRoots)
        let context = Unmanaged.passUnretained(feed).toOpaque()
        reader = xmlReaderForIO(
            { context, buffer, length in
                Unmanaged<XMLFeed>.fromOpaque(context!).takeUnretainedValue().fill(buffer, Int(length))
            },
            nil, context, input.name, "UTF-8", Self.options)
        if let reader {
            xmlTextReaderSetStructuredErrorHandler(
                reader,
                { context, error in
                    guard let context, let error else { return }
                    Unmanaged<XMLFeed>.fromOpaque(context).takeUnretainedValue().record(error.pointee)
                },
                context)
        }
    }

    deinit {
        if let reader { xmlFreeTextReader(reader) }
    }

    /// Appends up to `limit` nodes to `batch`, and sets its `end` when the document ends or the
    /// reader stops at an error (checked after every step, as libxml2 reports errors as it parses).
    package func read(into batch: inout XMLNodeBatch, limit: Int) {
        guard let reader else {
            batch.end = .failed(ManifestError(manifest: feed.input.name, problem: "libxml2 could not create a reader"))
            return
        }
        while batch.nodes.count < limit {
            let status = xmlTextReaderRead(reader)
            if status == 0 {
                batch.end = .finished(inputError: feed.inputError)
                return
            }
            if status < 0 || feed.parserError != nil {
                batch.end = .failed(feed.failure())
                return
            }
            let depth = xmlTextReaderDepth(reader)
            switch NodeType(rawValue: xmlTextReaderNodeType(reader)) {
            case .element:
                var node = XMLNodeBatch.Node(kind: .element, depth: depth)
                node.position = feed.scanner.nextStartTag()
                node.text = xmlTextReaderConstName(reader).map { batch.copy($0) }
                node.namespace = xmlTextReaderConstNamespaceUri(reader).map { batch.copy($0) }
                node.isEmpty = xmlTextReaderIsEmptyElement(reader) == 1
                let first = batch.attributes.count
                while xmlTextReaderMoveToNextAttribute(reader) == 1 {
                    batch.appendAttribute(name: xmlTextReaderConstName(reader), value: xmlTextReaderConstValue(reader))
                }
                xmlTextReaderMoveToElement(reader)
                node.attributes = first..<batch.attributes.count
                batch.append(node)
            case .endElement:
                batch.append(XMLNodeBatch.Node(kind: .endElement, depth: depth))
            case .text, .cdata:
                var node = XMLNodeBatch.Node(kind: .text, depth: depth)
                node.text = batch.copy(xmlTextReaderConstValue(reader))
                batch.append(node)
            case .entityReference, .entity, .documentType:
                batch.end = .failed(feed.failure())
                return
            case nil:
                continue
            }
        }
    }
}
