import Foundation

/// The calls of an `strace -f -y -tt -o FILE` log, in the order they returned, and which threads
/// share a descriptor table (so that a descriptor opened by one thread is known to the others).
///
/// Each line is `TID HH:MM:SS.ffffff name(args) = result`, or a call split around other threads'
/// lines: `name(args <unfinished ...>`, later `<... name resumed>rest) = result`. Signals, exits
/// and calls that never returned (the process was killed) are no events.
struct StraceLog: Sendable {
    private(set) var events: [SyscallEvent] = []
    /// For each thread made by `clone`/`clone3` with `CLONE_FILES`, the thread it shares descriptors with.
    private(set) var sharesDescriptors: [Int: Int] = [:]

    init(_ text: String) {
        /// Per thread, the start of a call that has not returned yet: its line number, text and body so far.
        var unfinished: [Int: (line: Int, text: String, body: Substring)] = [:]
        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let number = index + 1
            guard let (tid, body) = Self.split(rawLine) else { continue }
            if body.hasPrefix("<... ") {
                guard let close = body.range(of: " resumed>"), let start = unfinished.removeValue(forKey: tid) else { continue }
                record(tid: tid, body: start.body + body[close.upperBound...], line: start.line, endLine: number, text: start.text)
            } else if body.hasSuffix(" <unfinished ...>") {
                unfinished[tid] = (number, String(rawLine), body.dropLast(" <unfinished ...>".count))
            } else {
                record(tid: tid, body: body, line: number, endLine: number, text: String(rawLine))
            }
        }
    }

    /// The thread id and the part after the timestamp, or nil for a line that is no call.
    private static func split(_ line: Substring) -> (tid: Int, body: Substring)? {
        let fields = line.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard fields.count == 2, let tid = Int(fields[0]) else { return nil }
        var body = fields[1].drop { $0 == " " }
        if let first = body.first, first.isNumber, let space = body.firstIndex(of: " ") { body = body[space...].dropFirst() }
        guard !body.hasPrefix("---"), !body.hasPrefix("+++") else { return nil }
        return (tid, body)
    }

    private mutating func record(tid: Int, body: Substring, line: Int, endLine: Int, text: String) {
        guard let open = body.firstIndex(of: "("),
              let (arguments, rest) = Self.arguments(body[body.index(after: open)...]),
              rest.hasPrefix(" = ")
        else { return }
        let event = SyscallEvent(
            tid: tid, name: String(body[..<open]), arguments: arguments, result: String(rest.dropFirst(3)),
            line: line, endLine: endLine, text: text)
        if event.name.hasPrefix("clone"), event.succeeded, let child = Int(event.result.prefix { $0.isNumber }),
           arguments.contains(where: { $0.contains("CLONE_FILES") }) {
            sharesDescriptors[child] = tid
        }
        events.append(event)
    }

    /// Splits the text after `name(` into its top-level arguments, and returns what follows the closing `)`.
    /// Quotes, brackets and `-y` paths (`12</a, b>`) may hold commas and parentheses.
    static func arguments(_ text: Substring) -> ([String], Substring)? {
        var arguments: [String] = []
        var current = ""
        var closers: [Character] = []
        var inQuote = false
        var escaped = false
        var previous: Character = "("
        for index in text.indices {
            let character = text[index]
            defer { previous = character }
            if inQuote {
                current.append(character)
                if escaped { escaped = false } else if character == "\\" { escaped = true } else if character == "\"" { inQuote = false }
                continue
            }
            if closers.last == ">" {
                current.append(character)
                if character == ">" { closers.removeLast() }
                continue
            }
            switch character {
            case "\"":
                inQuote = true
            case "(": closers.append(")")
            case "[": closers.append("]")
            case "{": closers.append("}")
            case "<" where previous.isNumber || previous == "D":  // `12</path>`, `AT_FDCWD</path>`
                closers.append(">")
            case ")" where closers.isEmpty:
                if !current.isEmpty || !arguments.isEmpty { arguments.append(current.trimmingCharacters(in: .whitespaces)) }
                return (arguments, text[text.index(after: index)...])
            case "," where closers.isEmpty:
                arguments.append(current.trimmingCharacters(in: .whitespaces))
                current = ""
                continue
            default:
                if closers.last == character { closers.removeLast() }
            }
            current.append(character)
        }
        return nil
    }
}
