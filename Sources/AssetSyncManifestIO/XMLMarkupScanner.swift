package import AssetSyncModel

/// Reads the raw XML bytes just before libxml2 does, to do what libxml2's
/// reader cannot:
/// - record where each start tag begins (line and column), for error messages;
/// - refuse a DOCTYPE or other markup declaration before libxml2 parses it,
///   so no entity is ever declared, fetched or expanded;
/// - refuse text (never allowed in a manifest) and overlong attribute values
///   where they start, before libxml2 buffers them; a document whose root element is
///   named `metalink` (any prefix), or another root its reader names (an S3 answer's), holds
///   its values as text, which is then allowed, its runs bounded as blanks are;
/// - blank out comments and processing instructions (newlines kept, so
///   positions stay true), which libxml2's reader would otherwise keep in memory.
package struct XMLMarkupScanner {
    /// The longest attribute value a valid manifest can have, with room to spare.
    static let maximumAttributeBytes = 65536
    /// The most white space (comments included) between two tags: libxml2 would gather it into one node.
    static let maximumBlankRun = 1 << 20

    package enum Problem: Equatable {
        case declaration
        case text
        case cdata
        case longAttribute
        case longBlankRun
    }

    private enum State: UInt8 {
        case content, lessThan, bang, comment, instruction, startTag, endTag, quoted, rootName
    }

    /// The longest root element name looked at: `metalink` with a prefix fits many times over.
    private static let maximumRootNameBytes = 64

    /// - Parameter textRoots: the root elements under which text is allowed: a Metalink's by default.
    package init(textRoots: [String] = ["metalink"]) { self.textRoots = textRoots }

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
    package private(set) var problem: (kind: Problem, position: SourcePosition)?
    /// Whether text may stand between tags: the root element is one of `textRoots`.
    package private(set) var allowsText = false
    /// The root elements (local names) of documents that hold their values as text.
    private let textRoots: [String]
    /// The root element's name while its start tag is read; nil before and after.
    private var rootName: [UInt8]?
    private var sawRootTag = false

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
    ///
    /// Every byte of a manifest passes through here, so the common states (blanks between tags,
    /// inside a tag, inside a quoted value) each run a tight loop over the bytes with the
    /// counters in local variables; the rare ones (comments, instructions, "<!") go byte by byte.
    package mutating func scan(_ bytes: UnsafeMutableRawBufferPointer, carried: Int) -> Bool {
        guard problem == nil else { return false }
        let count = bytes.count
        guard count > carried else { return true }
        let text = bytes.baseAddress!.assumingMemoryBound(to: UInt8.self)
        let base = offset - carried
        var index = carried
        var line = self.line
        var column = self.column
        var found: (Problem, SourcePosition)?
        defer {
            self.line = line
            self.column = column
            if let found { problem = found } else { offset += count - carried }
        }
        while index < count {
            switch state {
            case .content:
                var blankRun = self.blankRun
                defer { self.blankRun = blankRun }
                while index < count {
                    let byte = text[index]
                    Self.track(byte, &line, &column)
                    blankRun += 1
                    if blankRun > Self.maximumBlankRun {
                        found = (.longBlankRun, SourcePosition(line: line, column: column))
                        return false
                    }
                    index += 1
                    if byte == UInt8(ascii: "<") {
                        tagStart = SourcePosition(line: line, column: column)
                        tagStartOffset = base + index - 1
                        state = .lessThan
                        break
                    }
                    guard allowsText || byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 else {
                        found = (.text, SourcePosition(line: line, column: column))
                        return false
                    }
                }
            case .startTag, .quoted:
                // A tag's quoted values are scanned in line: most of a manifest's bytes are in them.
                var attributeBytes = self.attributeBytes
                defer { self.attributeBytes = attributeBytes }
                var inValue = state == .quoted
                tag: while true {
                    if inValue {
                        switch Self.scanQuoted(text, &index, count, quote, &attributeBytes, &line, &column) {
                        case .closed:
                            state = .startTag
                            inValue = false
                        case .chunkEnd:
                            break tag
                        case .tooLong:
                            found = (.longAttribute, tagStart)
                            return false
                        }
                    }
                    guard index < count else { break tag }
                    let byte = text[index]
                    Self.track(byte, &line, &column)
                    index += 1
                    if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                        quote = byte
                        attributeBytes = 0
                        state = .quoted
                        inValue = true
                    } else if byte == UInt8(ascii: ">") {
                        state = .content
                        break tag
                    }
                }
            case .endTag:
                while index < count {
                    let byte = text[index]
                    Self.track(byte, &line, &column)
                    index += 1
                    if byte == UInt8(ascii: ">") {
                        state = .content
                        break
                    }
                }
            case .lessThan, .bang, .comment, .instruction, .rootName:
                let byte = text[index]
                Self.track(byte, &line, &column)
                if let problem = scanMarkupByte(byte, at: index, in: bytes, line: line, column: column) {
                    found = problem
                    return false
                }
                index += 1
            }
        }
        return true
    }

    private enum QuotedEnd { case closed, chunkEnd, tooLong }

    /// Scans a quoted attribute value from `index` through its closing `quote`, counting its bytes,
    /// lines and columns a run at a time (a run ends at the quote or a newline); stops early at
    /// the end of the chunk, or once the value is longer than `maximumAttributeBytes`.
    @inline(__always)
    private static func scanQuoted(
        _ text: UnsafeMutablePointer<UInt8>, _ index: inout Int, _ count: Int, _ quote: UInt8,
        _ attributeBytes: inout Int, _ line: inout Int, _ column: inout Int
    ) -> QuotedEnd {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highBits: UInt64 = 0x8080_8080_8080_8080
        let quotes = ones &* UInt64(quote)
        let newlines = ones &* 0x0A
        while true {
            var stop = index
            var characters = 0
            // Eight bytes at a time while none is the quote or a newline: a byte is a character
            // unless it is a UTF-8 continuation byte (10xxxxxx: bit 7 set, bit 6 clear).
            while stop &+ 8 <= count {
                let word = UnsafeRawPointer(text + stop).loadUnaligned(as: UInt64.self)
                let isQuote = word ^ quotes
                let isNewline = word ^ newlines
                let zero = ((isQuote &- ones) & ~isQuote | (isNewline &- ones) & ~isNewline) & highBits
                if zero != 0 { break }
                characters &+= 8 &- (word & ~(word << 1) & highBits).nonzeroBitCount
                stop &+= 8
            }
            while stop < count {
                let byte = text[stop]
                if byte == quote || byte == 0x0A { break }
                if byte & 0xC0 != 0x80 { characters &+= 1 }
                stop &+= 1
            }
            attributeBytes &+= stop &- index
            column &+= characters
            index = stop
            if attributeBytes > maximumAttributeBytes { return .tooLong }
            if stop == count { return .chunkEnd }
            index &+= 1
            if text[stop] == quote {
                column &+= 1
                return .closed
            }
            line &+= 1  // a newline inside the value
            column = 0
            attributeBytes &+= 1
            if attributeBytes > maximumAttributeBytes { return .tooLong }
        }
    }

    /// Counts `byte` into the line and column of the next one: columns count characters, not bytes.
    @inline(__always)
    private static func track(_ byte: UInt8, _ line: inout Int, _ column: inout Int) {
        if byte == 0x0A {
            line += 1
            column = 0
        } else if byte & 0xC0 != 0x80 {
            column += 1
        }
    }

    /// One byte after "<", in "<!", in a comment or in an instruction, at `index` of the chunk
    /// and at `line` and `column`; returns the problem it is, if any.
    private mutating func scanMarkupByte(
        _ byte: UInt8, at index: Int, in bytes: UnsafeMutableRawBufferPointer, line: Int, column: Int
    ) -> (Problem, SourcePosition)? {
        switch state {
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
                if !sawRootTag {
                    sawRootTag = true
                    rootName = [byte]
                    state = .rootName
                }
            }
        case .rootName:
            guard byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 || byte == UInt8(ascii: "/") || byte == UInt8(ascii: ">") else {
                if rootName!.count <= Self.maximumRootNameBytes { rootName!.append(byte) }
                break
            }
            let localName = rootName!.split(separator: UInt8(ascii: ":"), omittingEmptySubsequences: false).last!
            allowsText = textRoots.contains { localName.elementsEqual($0.utf8) }
            rootName = nil
            state = byte == UInt8(ascii: ">") ? .content : .startTag
        case .bang:
            switch byte {
            case UInt8(ascii: "-"):
                state = .comment
                run = -1
                blank(bytes, index - 2, through: index)
            case UInt8(ascii: "["):
                return (allowsText ? .cdata : .text, tagStart)  // CDATA is text, which no manifest element holds
            default:
                return (.declaration, tagStart)
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
            if blankRun > Self.maximumBlankRun { return (.longBlankRun, SourcePosition(line: line, column: column)) }
        case .instruction:
            if byte == UInt8(ascii: ">"), run == 1 {
                state = .content
            } else {
                run = byte == UInt8(ascii: "?") ? 1 : 0
            }
            if blanking { blank(bytes, index, through: index) }
        case .content, .startTag, .quoted, .endTag:
            break
        }
        return nil
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
