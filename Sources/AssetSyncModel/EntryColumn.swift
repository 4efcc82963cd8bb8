/// An optional value for each of a manifest's entries, by entry index, whose storage is made only
/// when a first value is set: the cache items of a run into an empty DEST, or the records of an
/// empty state index, cost nothing for a million entries, where an array of nils cost 32–72 MB.
///
/// A `package` generic is not specialized in the modules that use it, so each read or write from
/// another layer goes through the generic entry point and looks up the column's type metadata (a
/// tenth of a million-entry no-op's time when the loops were written entry by entry). Loops over
/// every entry therefore use the bulk operations below, which run once in this module.
package struct EntryColumn<Value: Sendable>: RandomAccessCollection, Sendable {
    package let count: Int
    private var values: [Value?]

    /// A column of `count` absent values.
    package init(count: Int) {
        self.count = count
        values = []
    }

    /// A column of `values`, given whole by a caller that made them in a loop of its own; `values`
    /// is either empty (no value set) or holds exactly `count` values.
    package init(count: Int, values: [Value?]) {
        precondition(values.isEmpty || values.count == count, "a column holds one value for each entry")
        self.count = count
        self.values = values
    }

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

    /// How many entries have a value.
    package var valueCount: Int { values.isEmpty ? 0 : values.lazy.filter { $0 != nil }.count }

    /// Removes the value of every entry for which `shouldClear` holds; a column without values,
    /// or one where no entry with a value is cleared, is left as it is (its storage not copied).
    package mutating func clear(where shouldClear: (Int) -> Bool) {
        guard !values.isEmpty else { return }
        for index in values.indices where values[index] != nil && shouldClear(index) {
            values[index] = nil
        }
    }

    /// Calls `body` with each entry's value here, or else its value in `fallback`, in entry order,
    /// skipping entries that have neither.
    package func forEachValue(orIn fallback: EntryColumn, _ body: (Int, Value) throws -> Void) rethrows {
        precondition(fallback.count == count, "columns of different manifests")
        for index in 0..<count {
            if let value = values.isEmpty ? nil : values[index] {
                try body(index, value)
            } else if let value = fallback.values.isEmpty ? nil : fallback.values[index] {
                try body(index, value)
            }
        }
    }
}

extension EntryColumn: Equatable where Value: Equatable {
    package static func == (lhs: EntryColumn, rhs: EntryColumn) -> Bool { lhs.elementsEqual(rhs) }
}
