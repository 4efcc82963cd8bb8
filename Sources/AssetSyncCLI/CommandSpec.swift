package import AssetSync

/// The shape of one command's command line, its usage line and its help.
package struct CommandSpec: Sendable {
    package let name: String
    package let usage: String
    /// Placeholder names of the required positional arguments, in order.
    package let arguments: [String]
    /// Options that take a value, with the value's placeholder: `--dest` → `<dir>`.
    package let valueOptions: [String: String]
    package let flags: [String]
    /// Value options that may be given more than once, each value kept.
    package var repeatable: Set<String> = []
    package let help: String
}

/// A command line as a command receives it.
package struct ParsedArguments {
    package var arguments: [String] = []
    package var values: [String: [String]] = [:]
    package var flags: Set<String> = []

    /// The value of an option given at most once.
    package func value(_ option: String) -> String? { values[option]?.last }
}

/// A command line that cannot be run: exit 2, with the usage line.
package struct UsageError: ExplainedError, Equatable {
    package var message: String
    package var command: String?
    package var kind: ErrorKind { .invalidInput }
}

extension CommandSpec {
    /// Parses `words` (after the command's name), in swift-argument-parser's conventions:
    /// `--opt value` or `--opt=value`, `--` ends the options, a lone `-` is an argument.
    package func parse(_ words: [String]) throws(UsageError) -> ParsedArguments {
        var parsed = ParsedArguments()
        var index = 0
        var optionsEnded = false
        while index < words.count {
            let word = words[index]
            index += 1
            if optionsEnded || !word.hasPrefix("-") || word == "-" {
                guard parsed.arguments.count < arguments.count else {
                    throw UsageError(message: "Unexpected argument '\(word)'", command: name)
                }
                parsed.arguments.append(word)
                continue
            }
            if word == "--" {
                optionsEnded = true
                continue
            }
            let (option, inlineValue) = split(word)
            if let placeholder = valueOptions[option] {
                let value: String
                if let inlineValue {
                    value = inlineValue
                } else if index < words.count {
                    value = words[index]
                    index += 1
                } else {
                    throw UsageError(message: "Missing value for '\(option) \(placeholder)'", command: name)
                }
                guard parsed.values[option] == nil || repeatable.contains(option) else {
                    throw UsageError(message: "'\(option)' was given more than once", command: name)
                }
                parsed.values[option, default: []].append(value)
            } else if flags.contains(option), inlineValue == nil {
                parsed.flags.insert(option)
            } else if flags.contains(option) {
                throw UsageError(message: "'\(option)' does not take a value", command: name)
            } else {
                throw UsageError(message: "Unknown option '\(option)'", command: name)
            }
        }
        if parsed.arguments.count < arguments.count {
            throw UsageError(message: "Missing expected argument '\(arguments[parsed.arguments.count])'", command: name)
        }
        return parsed
    }

    private func split(_ word: String) -> (String, String?) {
        guard word.hasPrefix("--"), let equals = word.firstIndex(of: "=") else { return (word, nil) }
        return (String(word[..<equals]), String(word[word.index(after: equals)...]))
    }
}
