/// Why a manifest was refused: which manifest, where in it, which field,
/// which rule, and the offending value.
package struct ManifestError: ExplainedError, Equatable, CustomStringConvertible {
    /// The manifest as the user named it (a path, a URL, or "<stdin>").
    package var manifest: String
    package var position: SourcePosition?
    /// The entry, when the problem is in one: "<file>" in XML, "files[3]" in JSON.
    package var entry: String?
    /// The problem, already phrased with its field: `path must not be absolute`.
    package var problem: String
    /// The offending value, quoted and shortened for display.
    package var value: String?
    /// What else fixes the problem; worded by the command line, after `problem`.
    package var remedy: Remedy?

    package init(
        manifest: String, position: SourcePosition? = nil, entry: String? = nil,
        problem: String, value: String? = nil, remedy: Remedy? = nil
    ) {
        self.manifest = manifest
        self.position = position
        self.entry = entry
        self.problem = problem
        self.value = value
        self.remedy = remedy
    }

    package var kind: ErrorKind { .invalidInput }

    package var description: String { description(remedyWords: "") }

    /// The description with `remedyWords` (the remedy as the command line words it) after the problem.
    package func description(remedyWords: String) -> String {
        var text = manifest
        if let position { text += ":\(position.line):\(position.column)" }
        text += ": "
        if let entry { text += "\(entry): " }
        text += problem + remedyWords
        if let value { text += ": \(value)" }
        return text
    }
}

/// A line and column (both from 1) in a manifest's decompressed text.
package struct SourcePosition: Equatable, Sendable, CustomStringConvertible {
    package var line: Int
    package var column: Int

    package init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }

    package var description: String { "line \(line), column \(column)" }
}

/// A broken rule, before the reader adds where it happened.
package struct RuleViolation: Error, Equatable {
    /// Phrased with the field first: `size must not be negative`.
    package var problem: String
    package var value: String?
    package var remedy: Remedy?

    package init(_ problem: String, value: String? = nil, remedy: Remedy? = nil) {
        self.problem = problem
        self.value = value
        self.remedy = remedy
    }
}
