import Foundation

/// Ordered HTTP header fields with case-insensitive lookup; names keep the case they were sent with.
struct FaultHeaders: Sendable, Equatable, ExpressibleByDictionaryLiteral, CustomStringConvertible {
    var fields: [Field]

    struct Field: Sendable, Equatable {
        var name: String
        var value: String
    }

    init(_ fields: [(String, String)] = []) { self.fields = fields.map { Field(name: $0.0, value: $0.1) } }
    init(dictionaryLiteral elements: (String, String)...) { self.init(elements) }

    /// The first value of `name` (any case); setting replaces every field of that name, nil removes them.
    subscript(_ name: String) -> String? {
        get { fields.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value }
        set {
            let index = fields.firstIndex { $0.name.caseInsensitiveCompare(name) == .orderedSame }
            remove(name)
            if let newValue { fields.insert(Field(name: name, value: newValue), at: min(index ?? fields.count, fields.count)) }
        }
    }

    /// Every value of `name`, in order (for repeated fields).
    func values(_ name: String) -> [String] {
        fields.filter { $0.name.caseInsensitiveCompare(name) == .orderedSame }.map(\.value)
    }

    func contains(_ name: String) -> Bool { self[name] != nil }

    /// Appends a field even if one of that name exists (e.g. a duplicated Content-Length).
    mutating func add(_ name: String, _ value: String) { fields.append(Field(name: name, value: value)) }

    mutating func remove(_ name: String) { fields.removeAll { $0.name.caseInsensitiveCompare(name) == .orderedSame } }

    var description: String { fields.map { "\($0.name): \($0.value)" }.joined(separator: "\n") }
}
