/// The one text format of assetsync's small records (a partial's resume record, the cached
/// manifest's meta, the lock holder): an optional header line, then a `key value` line per field.
package enum KeyValueRecord {
    /// The record's text; fields whose value is nil are left out.
    package static func encode(_ fields: [(key: String, value: String?)], header: String? = nil) -> String {
        var text = header.map { $0 + "\n" } ?? ""
        for (key, value) in fields {
            if let value { text += key + " " + value + "\n" }
        }
        return text
    }

    /// The fields of `text` (a later line wins over an earlier one of the same key). A record with
    /// a header is all or nothing: nil when the header differs, the last line is torn, or a line has
    /// no value. One without a header is read as far as it goes, skipping lines without a value.
    package static func decode(_ text: String, header: String? = nil) -> [String: String]? {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        if let header {
            guard lines.first == Substring(header), lines.last == "" else { return nil }
            lines = Array(lines.dropFirst().dropLast())
        }
        var fields: [String: String] = [:]
        for line in lines {
            guard let space = line.firstIndex(of: " ") else {
                if header != nil { return nil }
                continue
            }
            fields[String(line[..<space])] = String(line[line.index(after: space)...])
        }
        return fields
    }
}
