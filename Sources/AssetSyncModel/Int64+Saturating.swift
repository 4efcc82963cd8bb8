extension Int64 {
    /// `self + other`, held at `Int64.max` (or `.min`) instead of overflowing. Each size in a
    /// manifest fits in an Int64 but their sum need not, so every byte total is formed this way:
    /// a total never traps and never wraps to a negative number.
    @inline(__always)
    package func addingSaturated(_ other: Int64) -> Int64 {
        let (sum, overflow) = addingReportingOverflow(other)
        return overflow ? (other < 0 ? .min : .max) : sum
    }
}

extension Sequence where Element == Int64 {
    /// The sum of the elements, held at `Int64.max` instead of overflowing.
    package func saturatingSum() -> Int64 { reduce(0) { $0.addingSaturated($1) } }
}
