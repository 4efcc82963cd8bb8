/// What a shell may offer for an option's value or an argument, read from its placeholder in the
/// command's spec, so that an option added to a spec completes without a change here.
package enum ValueCompletion: Equatable, Sendable {
    /// Any text: nothing to offer (`<n>`, `<url>`, `<header>`).
    case anything
    case files
    case directories
    /// One of fixed words: a placeholder written as `xml|json`.
    case choices([String])

    /// `<dir>` → directories; `<file>`, `<path>`, `<manifest>` → files; `a|b` → those words; else anything.
    package init(placeholder: String) {
        if placeholder.hasPrefix("<"), placeholder.hasSuffix(">") {
            switch placeholder.dropFirst().dropLast() {
            case "dir", "directory": self = .directories
            case "file", "path", "manifest": self = .files
            default: self = .anything
            }
        } else {
            self = .choices(placeholder.split(separator: "|").map(String.init))
        }
    }
}
