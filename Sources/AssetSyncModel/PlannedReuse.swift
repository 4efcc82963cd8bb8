/// What a pull would copy from files already on the machine rather than download, as far as the
/// state indexes say: for each entry the plan downloads, the first file recorded with its size and
/// CRC-32 (and SHA-256, when both give one). A lead, not a promise: the pull proves every copy
/// before it commits it, and downloads what fails.
package struct PlannedReuse: Sendable {
    /// The file each item may be copied from (by the item's place in the plan), as events name it.
    private let sources: [Int: String]
    /// The bytes of those items.
    package let bytes: Int64

    package static let none = PlannedReuse(sources: [:], bytes: 0)

    package init(sources: [Int: String], bytes: Int64) {
        self.sources = sources
        self.bytes = bytes
    }

    /// The file the item at `index` of the plan may be copied from, if any.
    package func source(ofItem index: Int) -> String? { sources.isEmpty ? nil : sources[index] }
}
