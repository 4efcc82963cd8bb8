/// An optional value for each of a manifest's entries, by entry index, whose storage is made only
/// when a first value is set: the cache items of a run into an empty DEST, or the records of an
/// empty state index, cost nothing for a million entries, where an array of nils cost 32–72 MB.
package struct EntryColumn<Value: Sendable>: RandomAccessCollection, Sendable {
    package let count: Int
    private var values: [Value?] = []

    /// A column of `count` absent values.
    package init(count: Int) { self.count = count }

    package var startIndex: Int { 0 }
    package var endIndex: Int { count }

    package subscript(index: Int) -> Value? {
        get {
            precondition(index >= 0 && index < count, "entry index out of range")
            return values.isEmpty ? nil : values[index]
        }
        set {
            if values.isEmpty {
                guard newValue != nil else { return }
                precondition(index >= 0 && index < count, "entry index out of range")
                values = Array(repeating: nil, count: count)
            }
            values[index] = newValue
        }
    }
}

extension EntryColumn: Equatable where Value: Equatable {
    package static func == (lhs: EntryColumn, rhs: EntryColumn) -> Bool { lhs.elementsEqual(rhs) }
}
