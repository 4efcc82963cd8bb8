import Foundation

/// A strict reader of Prometheus's text exposition format (version 0.0.4), as node_exporter's
/// textfile collector reads a `.prom` file: it refuses what a lenient reader would let through.
/// - every line is `# HELP name text`, `# TYPE name type`, another comment, or a sample;
/// - metric and label names match the format's patterns; label values use only `\\`, `\"`, `\n`;
/// - a sample's value is a float as Go's ParseFloat reads it (or NaN, +Inf, -Inf);
/// - a metric's HELP and TYPE come at most once each and before its samples, and its samples are
///   together; no two samples share a name and label set; the text ends with a newline.
struct PrometheusText {
    struct Failure: Error, CustomStringConvertible {
        var line: Int
        var problem: String
        var description: String { "line \(line): \(problem)" }
    }

    struct Sample: Equatable {
        var name: String
        var labels: [String: String]
        var value: Double
    }

    private(set) var samples: [Sample] = []
    private(set) var types: [String: String] = [:]
    private(set) var helps: [String: String] = [:]

    init(_ text: String) throws {
        guard text.isEmpty || text.hasSuffix("\n") else { throw Failure(line: 0, problem: "the text does not end with a newline") }
        var finished: Set<String> = []
        var current: String?
        var seen: Set<String> = []
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().enumerated() {
            let number = index + 1
            func fail(_ problem: String) -> Failure { Failure(line: number, problem: problem + ": " + String(line)) }
            if line.hasPrefix("#") {
                let words = line.split(separator: " ", maxSplits: 3, omittingEmptySubsequences: false)
                guard words.count >= 3, words[0] == "#", words[1] == "HELP" || words[1] == "TYPE" else { continue }
                let name = String(words[2])
                guard Self.isMetricName(name) else { throw fail("bad metric name") }
                guard !samples.contains(where: { $0.name == name }) else { throw fail("\(words[1]) after the metric's samples") }
                if words[1] == "HELP" {
                    guard helps[name] == nil else { throw fail("a second HELP") }
                    helps[name] = words.count > 3 ? String(words[3]) : ""
                } else {
                    guard types[name] == nil else { throw fail("a second TYPE") }
                    guard words.count == 4, ["counter", "gauge", "histogram", "summary", "untyped"].contains(words[3])
                    else { throw fail("bad TYPE") }
                    types[name] = String(words[3])
                }
                continue
            }
            guard !line.isEmpty else { throw fail("an empty line") }
            let sample = try Self.sample(line, fail: fail)
            if sample.name != current {
                if let current { finished.insert(current) }
                guard !finished.contains(sample.name) else { throw fail("the metric's samples are not together") }
                current = sample.name
            }
            let key = sample.name + "{" + sample.labels.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ",") + "}"
            guard seen.insert(key).inserted else { throw fail("a second sample with the same labels") }
            samples.append(sample)
        }
    }

    /// The value of the one sample of `name` whose labels include `labels`.
    func value(_ name: String, _ labels: [String: String] = [:]) -> Double? {
        let matching = samples.filter { sample in sample.name == name && labels.allSatisfy { sample.labels[$0.key] == $0.value } }
        return matching.count == 1 ? matching[0].value : nil
    }

    private static func isMetricName(_ name: String) -> Bool {
        name.range(of: "^[a-zA-Z_:][a-zA-Z0-9_:]*$", options: .regularExpression) != nil
    }

    private static func isLabelName(_ name: String) -> Bool {
        name.range(of: "^[a-zA-Z_][a-zA-Z0-9_]*$", options: .regularExpression) != nil && !name.hasPrefix("__")
    }

    private static func sample(_ line: Substring, fail: (String) -> Failure) throws -> Sample {
        var rest = line[...]
        let name = String(rest.prefix { $0 != "{" && $0 != " " })
        guard isMetricName(name) else { throw fail("bad metric name") }
        rest = rest.dropFirst(name.count)
        var labels: [String: String] = [:]
        if rest.first == "{" {
            rest = rest.dropFirst()
            while rest.first != "}" {
                let label = String(rest.prefix { $0 != "=" })
                guard isLabelName(label), labels[label] == nil else { throw fail("bad or repeated label name") }
                rest = rest.dropFirst(label.count)
                guard rest.hasPrefix("=\"") else { throw fail("a label without a quoted value") }
                rest = rest.dropFirst(2)
                var value = ""
                while true {
                    guard let character = rest.first else { throw fail("an unterminated label value") }
                    rest = rest.dropFirst()
                    if character == "\"" { break }
                    if character == "\\" {
                        switch rest.first {
                        case "\\": value += "\\"
                        case "\"": value += "\""
                        case "n": value += "\n"
                        default: throw fail("a bad escape in a label value")
                        }
                        rest = rest.dropFirst()
                    } else {
                        value.append(character)
                    }
                }
                labels[label] = value
                if rest.first == "," { rest = rest.dropFirst() } else if rest.first != "}" { throw fail("labels not separated by ,") }
            }
            rest = rest.dropFirst()
        }
        guard rest.first == " " else { throw fail("no space before the value") }
        let fields = rest.dropFirst().split(separator: " ", omittingEmptySubsequences: false)
        guard (1...2).contains(fields.count), fields.count == 1 || Int64(fields[1]) != nil else { throw fail("bad value or timestamp") }
        let text = String(fields[0])
        let special: [String: Double] = ["NaN": .nan, "+Inf": .infinity, "-Inf": -.infinity]
        guard let value = special[text] ?? (text.range(of: "^[-+]?([0-9]+\\.?[0-9]*|\\.[0-9]+)([eE][-+]?[0-9]+)?$", options: .regularExpression)
            != nil ? Double(text) : nil)
        else { throw fail("a value that is not a number") }
        return Sample(name: name, labels: labels, value: value)
    }
}
