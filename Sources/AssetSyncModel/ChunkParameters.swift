/// The sizes content-defined chunking cuts a file with (FastCDC): no chunk shorter than `minimum`
/// (but the last), none longer than `maximum`, about `average` on the whole. Part of a chunk list:
/// the old version of a file must be cut with the same sizes for its chunks to match the new one's.
package struct ChunkParameters: Hashable, Sendable, CustomStringConvertible {
    package let minimum: Int
    package let average: Int
    package let maximum: Int

    /// 256 KiB / 1 MiB / 4 MiB: about a thousand chunks per GiB, so that a chunk list costs about
    /// 24-27 kB of manifest per GiB, and a change costs about one mebibyte around it.
    package static let standard = ChunkParameters(unchecked: 256 << 10, 1 << 20, 4 << 20)

    /// The smallest `minimum` and the largest `maximum` accepted.
    package static let smallestMinimum = 4 << 10
    package static let largestMaximum = 64 << 20

    init(unchecked minimum: Int, _ average: Int, _ maximum: Int) {
        self.minimum = minimum
        self.average = average
        self.maximum = maximum
    }

    /// The sizes, when they are sane: `smallestMinimum` ≤ minimum < average < maximum ≤
    /// `largestMaximum`, and average a power of two (its bits make the cut masks).
    package init(minimum: Int, average: Int, maximum: Int) throws(RuleViolation) {
        guard minimum >= Self.smallestMinimum, maximum <= Self.largestMaximum else {
            throw RuleViolation(
                "chunks sizes must lie between \(Self.smallestMinimum) and \(Self.largestMaximum) bytes",
                value: QuotedValue.quote("\(minimum),\(average),\(maximum)"))
        }
        guard minimum < average, average < maximum else {
            throw RuleViolation("chunks sizes must be minimum < average < maximum", value: QuotedValue.quote("\(minimum),\(average),\(maximum)"))
        }
        guard average & (average - 1) == 0 else {
            throw RuleViolation("chunks average size must be a power of two", value: QuotedValue.quote("\(average)"))
        }
        self.init(unchecked: minimum, average, maximum)
    }

    /// `minimum,average,maximum` in bytes, as a chunk list starts.
    package var description: String { "\(minimum),\(average),\(maximum)" }

    /// The bits of `average`: the cut test looks at this many bits plus or minus two (FastCDC's
    /// normalized chunking, level 2).
    package var averageBits: Int { average.trailingZeroBitCount }
}
