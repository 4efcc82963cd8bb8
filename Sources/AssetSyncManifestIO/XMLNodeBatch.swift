package import AssetSyncModel
import Glibc

/// Nodes of an XML manifest as `XMLManifestWalker` needs them, copied out of
/// libxml2's reader a batch at a time: the copies outlive the reader's next
/// step, so one thread can parse while another checks the entries.
///
/// A batch is a value of three arrays; handing it to another thread moves
/// the arrays, and `removeAll()` keeps their capacity for the next batch.
package struct XMLNodeBatch {
    package enum Kind: UInt8 {
        case element, endElement, text
    }

    /// One node. Byte ranges point into `bytes`.
    package struct Node {
        package var kind: Kind
        package var depth: Int32
        /// An element written `<x/>`.
        package var isEmpty = false
        /// Where an element's start tag begins, as the markup scanner saw it.
        package var position: SourcePosition?
        /// An element's name (nil when libxml2 had none), or a text node's text.
        package var text: Range<Int>?
        /// An element's namespace URI; nil when it has none (a manifest's elements never do).
        package var namespace: Range<Int>?
        /// An element's attributes: a range of `attributes`.
        var attributes: Range<Int> = 0..<0
    }

    package struct Attribute {
        package var name: Range<Int>?
        package var value: Range<Int>
    }

    /// How the document ended, after the last node of the last batch.
    package enum End {
        /// The reader reached the end; `inputError` is a read failure it took for the end.
        case finished(inputError: ManifestError?)
        /// The reader stopped at an error (the document is not a well-formed, acceptable XML).
        case failed(ManifestError)
    }

    private(set) var nodes: [Node] = []
    private(set) var attributes: [Attribute] = []
    package private(set) var bytes: [UInt8] = []
    package var end: End?

    package init(capacity: Int) {
        nodes.reserveCapacity(capacity)
        attributes.reserveCapacity(capacity * 4)
        bytes.reserveCapacity(capacity * 128)
    }

    package mutating func removeAll() {
        nodes.removeAll(keepingCapacity: true)
        attributes.removeAll(keepingCapacity: true)
        bytes.removeAll(keepingCapacity: true)
        end = nil
    }

    package mutating func append(_ node: Node) { nodes.append(node) }

    mutating func appendAttribute(name: UnsafePointer<UInt8>?, value: UnsafePointer<UInt8>?) {
        attributes.append(Attribute(name: name.map { copy($0) }, value: copy(value)))
    }

    /// Copies a NUL-terminated string into `bytes`; nil copies as empty.
    package mutating func copy(_ text: UnsafePointer<UInt8>?) -> Range<Int> {
        let start = bytes.count
        guard let text else { return start..<start }
        bytes.append(contentsOf: UnsafeBufferPointer(start: text, count: strlen(text)))
        return start..<bytes.count
    }

    /// Calls `body` with the bytes in `range`.
    package func withBytes<Result>(_ range: Range<Int>, _ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        bytes.withUnsafeBufferPointer { body(UnsafeBufferPointer(rebasing: $0[range])) }
    }

    /// The bytes in `range` as a `String`, as `String(cString:)` made it from libxml2's copy.
    package func string(_ range: Range<Int>) -> String {
        withBytes(range) { String(decoding: $0, as: UTF8.self) }
    }
}
