/// A help page read back into its parts, so that the manual page and the shell completions are
/// made from the very text `--help` prints and never disagree with it.
///
/// The layout read is swift-argument-parser's, as `HelpText` writes it: a section starts with a
/// title in capitals and a colon at the start of a line (`OVERVIEW: …`, `OPTIONS:`), and its body
/// follows. In `ARGUMENTS`, `OPTIONS` and `SUBCOMMANDS`, a line indented by two spaces that starts
/// with an option, a `<placeholder>` or a single word is an entry: its label, two or more spaces,
/// then its description, continued on lines indented further.
package struct HelpPage: Sendable {
    /// One section: its title without the colon, and its lines, the text after the title first.
    package struct Section: Sendable {
        package let title: String
        package let lines: [String]
    }

    /// One line of a list section: an option, an argument or a subcommand, and what it does.
    package struct Entry: Sendable {
        /// As printed: `--dest <dir>`, `-h, --help`, `<manifest>`, `pull`.
        package let label: String
        /// The description's lines, without their indentation.
        package let description: [String]

        /// The option names of the label (`-h`, `--help`); empty for an argument or a subcommand.
        package var names: [String] {
            label.split(separator: " ").map { $0.hasSuffix(",") ? String($0.dropLast()) : String($0) }.filter { $0.hasPrefix("-") }
        }

        /// The first sentence of the description, for a one-line summary.
        package var summary: String { HelpPage.firstSentence(of: description.joined(separator: " ")) }
    }

    /// One line of a list section's body: an entry, or text between entries.
    package enum ListItem: Sendable {
        case entry(Entry)
        case text(String)
    }

    package static let listSections: Set<String> = ["ARGUMENTS", "OPTIONS", "SUBCOMMANDS"]

    package let sections: [Section]

    package init(_ text: String) {
        var sections: [Section] = []
        var title: String?
        var lines: [String] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if let (heading, rest) = Self.heading(line) {
                if let title { sections.append(Section(title: title, lines: Self.trimmingBlankEnds(lines))) }
                title = heading
                lines = rest.isEmpty ? [] : [rest]
            } else {
                lines.append(line)
            }
        }
        if let title { sections.append(Section(title: title, lines: Self.trimmingBlankEnds(lines))) }
        self.sections = sections
    }

    package func section(_ title: String) -> Section? { sections.first { $0.title == title } }

    /// The first line of the overview: what the command does, in one sentence.
    package var overview: String { section("OVERVIEW")?.lines.first ?? "" }

    /// The entries of a list section (`OPTIONS`, `ARGUMENTS`, `SUBCOMMANDS`), and the text between them.
    package func items(of title: String) -> [ListItem] {
        var items: [ListItem] = []
        var label: String?
        var description: [String] = []
        func finishEntry() {
            if let label { items.append(.entry(Entry(label: label, description: description))) }
            label = nil
            description = []
        }
        for line in section(title)?.lines ?? [] {
            let indentation = line.prefix { $0 == " " }.count
            let content = String(line.dropFirst(indentation))
            if label != nil, indentation > 2, !content.isEmpty {
                description.append(content)
                continue
            }
            finishEntry()
            guard !content.isEmpty else { continue }
            if indentation == 2, let (entryLabel, rest) = Self.entry(content) {
                label = entryLabel
                description = rest.isEmpty ? [] : [rest]
            } else {
                items.append(.text(content))
            }
        }
        finishEntry()
        return items
    }

    /// The entries of a list section, without the text between them.
    package func entries(of title: String) -> [Entry] {
        items(of: title).compactMap { item in
            if case .entry(let entry) = item { return entry }
            return nil
        }
    }

    /// `OPTIONS:` → ("OPTIONS", ""), `OVERVIEW: Text` → ("OVERVIEW", "Text"); nil for any other line.
    private static func heading(_ line: String) -> (String, String)? {
        guard let colon = line.firstIndex(of: ":") else { return nil }
        let title = line[..<colon]
        guard title.first?.isUppercase == true, title.allSatisfy({ $0.isUppercase || $0 == " " }) else { return nil }
        let rest = line[line.index(after: colon)...]
        guard rest.isEmpty || rest.hasPrefix(" ") else { return nil }
        return (String(title), String(rest.drop { $0 == " " }))
    }

    /// A label and the description after it, when `content` (a line without its indentation) is an entry.
    private static func entry(_ content: String) -> (String, String)? {
        let label: Substring
        var rest: Substring = ""
        if let gap = content.firstRange(of: "  ") {
            label = content[..<gap.lowerBound]
            rest = content[gap.upperBound...].drop { $0 == " " }
        } else {
            label = content[...]
        }
        let isEntry = label.hasPrefix("-") || label.hasPrefix("<") || !label.contains(" ")
        return isEntry ? (String(label), String(rest)) : nil
    }

    private static func trimmingBlankEnds(_ lines: [String]) -> [String] {
        let isBlank = { (line: String) in line.allSatisfy { $0 == " " } }
        guard let first = lines.firstIndex(where: { !isBlank($0) }), let last = lines.lastIndex(where: { !isBlank($0) }) else { return [] }
        return Array(lines[first...last])
    }

    /// Text up to and including the first full stop followed by a space, or all of it.
    package static func firstSentence(of text: String) -> String {
        guard let end = text.firstRange(of: ". ") else { return text }
        return String(text[..<end.lowerBound]) + "."
    }
}
