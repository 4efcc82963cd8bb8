/// Reads the raw XML bytes just before libxml2 does, to do what libxml2's
/// reader cannot:
/// - record where each start tag begins (line and column), for error messages;
/// - refuse a DOCTYPE or other markup declaration before libxml2 parses it,
///   so no entity is ever declared, fetched or expanded;
/// - refuse text (never allowed in a manifest) and overlong attribute values
///   where they start, before libxml2 buffers them;
/// - blank out comments and processing instructions (newlines kept, so
///   positions stay true), which libxml2's reader would otherwise keep in memory.
struct XMLMarkupScanner {
    /// The longest attribute value a valid manifest can have, with room to spare.
    static let maximumAttributeBytes = 65536
    /// The most white space (comments included) between two tags: libxml2 would gather it into one node.
    static let maximumBlankRun = 1 << 20

    enum Problem: Equatable {
        case declaration
        case text
        case longAttribute
        case longBlankRun
    }

    private enum State: UInt8 {
        case content, lessThan, bang, comment, instruction, startTag, endTag, quoted
    }

    private var state = State.content
    /// Per-state progress: dashes seen in a comment, brackets in CDATA, "?" in an instruction.
    private var run = 0
    private var quote: UInt8 = 0
    private var blanking = false
    private var attributeBytes = 0
    private var blankRun = 0
    private var line = 1
    private var column = 0
    /// Bytes scanned before the current chunk's new bytes.
    private var offset = 0
    private var tagStart = SourcePosition(line: 1, column: 1)
    private var tagStartOffset = 0
    private var startTags: [SourcePosition] = []
    private var claimed = 0
    private(set) var problem: (kind: Problem, position: SourcePosition)?

    /// Bytes at the end of the chunk just scanned that must not reach libxml2 yet: a "<" or "<!"
    /// that may open a comment or instruction, which is blanked from its "<" once recognised.
    var heldBack: Int {
        switch state {
        case .lessThan: return 1
        case .bang: return 2
        default: return 0
        }
    }

    /// Scans `bytes[carried...]` (the bytes before `carried` were held back from the last chunk
    /// and already scanned) and blanks comments and instructions in place; false once a problem is found.
    mutating func scan(_ bytes: UnsafeMutableRawBufferPointer, carried: Int) -> Bool {
        guard problem == nil else { return false }
        var index = carried
        let count = bytes.count
        let base = offset - carried
        while index < count {
            let byte = bytes[index]
            if byte == 0x0A {
                line += 1
                column = 0
            } else if byte & 0xC0 != 0x80 {
                column += 1
            }
            switch state {
            case .content:
                blankRun += 1
                if blankRun > Self.maximumBlankRun { return fail(.longBlankRun, at: SourcePosition(line: line, column: column)) }
                if byte == UInt8(ascii: "<") {
                    tagStart = SourcePosition(line: line, column: column)
                    tagStartOffset = base + index
                    state = .lessThan
                } else if !(byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09) {
                    return fail(.text, at: SourcePosition(line: line, column: column))
                }
            case .lessThan:
                switch byte {
                case UInt8(ascii: "!"): state = .bang
                case UInt8(ascii: "?"):
                    state = .instruction
                    run = 0
                    blanking = !isDocumentStart(tagStartOffset)  // the <?xml …?> declaration stays
                    if blanking { blank(bytes, index - 1, through: index) }
                case UInt8(ascii: "/"):
                    state = .endTag
                    blankRun = 0
                default:
                    startTags.append(tagStart)
                    state = .startTag
                    blankRun = 0
                }
            case .bang:
                switch byte {
                case UInt8(ascii: "-"):
                    state = .comment
                    run = -1
                    blank(bytes, index - 2, through: index)
                case UInt8(ascii: "["):
                    return fail(.text, at: tagStart)  // CDATA is text, which no manifest element holds
                default:
                    return fail(.declaration, at: tagStart)
                }
            case .comment:
                if run < 0 {
                    run = 0  // the second "-" of "<!--"
                } else if byte == UInt8(ascii: "-") {
                    run += 1
                } else if byte == UInt8(ascii: ">"), run >= 2 {
                    state = .content
                } else {
                    run = 0
                }
                blank(bytes, index, through: index)
                blankRun += 1
                if blankRun > Self.maximumBlankRun { return fail(.longBlankRun, at: SourcePosition(line: line, column: column)) }
            case .instruction:
                if byte == UInt8(ascii: ">"), run == 1 {
                    state = .content
                } else {
                    run = byte == UInt8(ascii: "?") ? 1 : 0
                }
                if blanking { blank(bytes, index, through: index) }
            case .startTag:
                if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                    quote = byte
                    attributeBytes = 0
                    state = .quoted
                } else if byte == UInt8(ascii: ">") {
                    state = .content
                }
            case .quoted:
                if byte == quote {
                    state = .startTag
                } else {
                    attributeBytes += 1
                    if attributeBytes > Self.maximumAttributeBytes { return fail(.longAttribute, at: tagStart) }
                }
            case .endTag:
                if byte == UInt8(ascii: ">") { state = .content }
            }
            index += 1
        }
        offset += count - carried
        return true
    }

    /// Offset 0: where only the XML declaration may stand (a byte order mark is removed before scanning).
    private func isDocumentStart(_ offset: Int) -> Bool { offset == 0 }

    /// Replaces bytes `from...through` of the chunk with spaces, keeping newlines.
    private func blank(_ bytes: UnsafeMutableRawBufferPointer, _ from: Int, through end: Int) {
        var index = from
        while index <= end {
            if bytes[index] != 0x0A { bytes[index] = 0x20 }
            index += 1
        }
    }

    private mutating func fail(_ kind: Problem, at position: SourcePosition) -> Bool {
        problem = (kind, position)
        return false
    }

    /// The position of the next start tag, in document order.
    mutating func nextStartTag() -> SourcePosition? {
        guard claimed < startTags.count else { return nil }
        let position = startTags[claimed]
        claimed += 1
        if claimed >= 4096, claimed * 2 >= startTags.count {
            startTags.removeFirst(claimed)
            claimed = 0
        }
        return position
    }
}
