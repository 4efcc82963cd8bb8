/// Reads the raw XML bytes just ahead of libxml2 to do two things libxml2's
/// reader cannot: record where each start tag begins (line and column), and
/// refuse a DOCTYPE or other markup declaration before libxml2 parses it, so
/// no entity is ever declared, fetched or expanded.
struct XMLMarkupScanner {
    private enum State {
        case content
        case lessThan
        case bang
        case comment(dashes: Int)
        case cdata(brackets: Int)
        case instruction(sawQuestion: Bool)
        case startTag
        case endTag
        case quoted(UInt8)
    }

    private var state = State.content
    private var line = 1
    private var column = 0
    private var tagStart = SourcePosition(line: 1, column: 1)
    /// Start positions of tags seen but not yet claimed by `nextStartTag()`.
    private var startTags: [SourcePosition] = []
    private var claimed = 0
    /// Where a DOCTYPE or other declaration was found; once set, scanning stops.
    private(set) var declaration: SourcePosition?

    /// Scans the next bytes of the document; false once a declaration is found.
    mutating func scan(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard declaration == nil else { return false }
        for byte in bytes {
            if byte == 0x0A {
                line += 1
                column = 0
            } else if byte & 0xC0 != 0x80 {
                column += 1
            }
            switch state {
            case .content:
                if byte == UInt8(ascii: "<") {
                    tagStart = SourcePosition(line: line, column: column)
                    state = .lessThan
                }
            case .lessThan:
                switch byte {
                case UInt8(ascii: "!"): state = .bang
                case UInt8(ascii: "?"): state = .instruction(sawQuestion: false)
                case UInt8(ascii: "/"): state = .endTag
                default:
                    startTags.append(tagStart)
                    state = .startTag
                }
            case .bang:
                switch byte {
                case UInt8(ascii: "-"): state = .comment(dashes: -1)
                case UInt8(ascii: "["): state = .cdata(brackets: 0)
                default:
                    declaration = tagStart
                    return false
                }
            case .comment(let dashes):
                if dashes < 0 {
                    state = .comment(dashes: 0)
                } else if byte == UInt8(ascii: "-") {
                    state = .comment(dashes: dashes + 1)
                } else if byte == UInt8(ascii: ">"), dashes >= 2 {
                    state = .content
                } else {
                    state = .comment(dashes: 0)
                }
            case .cdata(let brackets):
                if byte == UInt8(ascii: "]") {
                    state = .cdata(brackets: brackets + 1)
                } else if byte == UInt8(ascii: ">"), brackets >= 2 {
                    state = .content
                } else {
                    state = .cdata(brackets: 0)
                }
            case .instruction(let sawQuestion):
                if byte == UInt8(ascii: ">"), sawQuestion {
                    state = .content
                } else {
                    state = .instruction(sawQuestion: byte == UInt8(ascii: "?"))
                }
            case .startTag:
                if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                    state = .quoted(byte)
                } else if byte == UInt8(ascii: ">") {
                    state = .content
                }
            case .quoted(let quote):
                if byte == quote { state = .startTag }
            case .endTag:
                if byte == UInt8(ascii: ">") { state = .content }
            }
        }
        return true
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
