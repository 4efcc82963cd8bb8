import AssetSync

/// A number given by a command-line option or an environment variable: the one parser every
/// numeric setting goes through, so that no value can crash the process, wrap around or be
/// silently clamped. A value outside `range` is a usage error naming the setting, the value
/// and the range.
package struct NumericSetting: Sendable {
    package enum Kind: Sendable {
        /// Decimal digits only: `8`.
        case whole
        /// A decimal number, fraction allowed: `2.5`.
        case decimal
        /// Bytes per second, a decimal number with an optional K, M or G (powers of 1024): `20M`.
        case byteRate
    }

    /// Where the value comes from: an option (`--jobs`) or an environment variable (`ASSETSYNC_…`).
    package enum Source: Sendable {
        case option(String)
        case environment(String)
    }

    package let source: Source
    package let kind: Kind
    /// The accepted values, in the setting's unit (bytes for a rate).
    package let range: ClosedRange<Double>
    /// What one unit is, for the message: "seconds", "bytes".
    package var unit: String? = nil

    /// The setting's value, from the command line or `environment`, or nil when it is not given.
    package func value(in arguments: ParsedArguments, environment: [String: String], command: String) throws(UsageError) -> Double? {
        let text: String?
        switch source {
        case .option(let name): text = arguments.value(name)
        case .environment(let name): text = environment[name]
        }
        guard let text else { return nil }
        return try parse(text, command: command)
    }

    package func parse(_ text: String, command: String) throws(UsageError) -> Double {
        guard let value = Self.number(text, kind: kind), range.contains(value) else {
            throw UsageError(message: "\(label) must be \(expected), not \(QuotedValue.quote(text))", command: command)
        }
        return value
    }

    private var label: String {
        switch source {
        case .option(let name): "'\(name)'"
        case .environment(let name): "the environment variable \(name)"
        }
    }

    /// The accepted values in words: "a whole number from 1 to 64".
    private var expected: String {
        let bounds = "from \(Self.format(range.lowerBound, kind)) to \(Self.format(range.upperBound, kind))"
        switch kind {
        case .whole: return "a whole number " + (unit.map { "of \($0) " } ?? "") + bounds
        case .decimal: return (unit.map { $0 + " " } ?? "a number ") + bounds
        case .byteRate: return "bytes per second \(bounds), such as 500K, 20M or 1G"
        }
    }

    private static let rateUnits: [(suffix: Character, factor: Double)] = [("G", 1_073_741_824), ("M", 1_048_576), ("K", 1024)]

    private static func format(_ bound: Double, _ kind: Kind) -> String {
        if kind == .byteRate, bound > 0, let unit = rateUnits.first(where: { bound >= $0.factor && bound.remainder(dividingBy: $0.factor) == 0 }) {
            return "\(Int64(bound / unit.factor))\(unit.suffix)"
        }
        return bound.rounded() == bound ? String(Int64(bound)) : String(bound)
    }

    /// Plain decimal notation only: no sign, exponent, hexadecimal, `inf` or `nan`.
    private static func number(_ text: String, kind: Kind) -> Double? {
        var digits = Substring(text)
        var factor = 1.0
        if kind == .byteRate, let last = digits.last?.uppercased().first, let unit = rateUnits.first(where: { $0.suffix == last }) {
            factor = unit.factor
            digits = digits.dropLast()
        }
        let parts = digits.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard !digits.isEmpty, digits.utf8.allSatisfy({ $0 == UInt8(ascii: ".") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
              parts.allSatisfy({ !$0.isEmpty && !$0.contains(".") }),
              kind != .whole || parts.count == 1,
              let value = Double(digits)
        else { return nil }
        return value * factor
    }
}
