/// One of the AWS tools' shared files (`~/.aws/config`, `~/.aws/credentials`), read as botocore reads
/// them: `[section]` headers, `name = value` lines (names in lowercase, values trimmed), whole-line
/// comments starting with `#` or `;`, and a setting whose value is empty followed by indented
/// `name = value` lines as a nested group (`s3 =` then `  addressing_style = path`).
struct AWSSharedFile: Equatable {
    /// One section's settings: plain values, and nested groups by their name.
    struct Section: Equatable {
        var values: [String: String] = [:]
        var nested: [String: [String: String]] = [:]
    }

    private(set) var sections: [String: Section] = [:]

    init(_ text: String) {
        var current: String?
        var group: String?
        for rawLine in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
            let indented = rawLine.first == " " || rawLine.first == "\t"
            let line = rawLine.trimmingSpaces
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";") { continue }
            if line.hasPrefix("["), line.hasSuffix("]") {
                current = String(line.dropFirst().dropLast()).trimmingSpaces
                group = nil
                if let current, sections[current] == nil { sections[current] = Section() }
                continue
            }
            guard let section = current, let equals = line.firstIndex(where: { $0 == "=" || $0 == ":" }) else { continue }
            let name = line[..<equals].trimmingSpaces.lowercased()
            let value = line[line.index(after: equals)...].trimmingSpaces
            if indented, let group {
                sections[section]?.nested[group, default: [:]][name] = value
            } else if value.isEmpty {
                group = name
                if sections[section]?.nested[name] == nil { sections[section]?.nested[name] = [:] }
            } else {
                group = nil
                sections[section]?.values[name] = value
            }
        }
    }
}

extension StringProtocol {
    /// Without the spaces and tabs at either end.
    fileprivate var trimmingSpaces: String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        return String(drop(while: isSpace).reversed().drop(while: isSpace).reversed())
    }
}
