import Glibc

/// The process's environment variables, read once from `environ`.
package enum ProcessEnvironment {
    /// Every variable; of two entries with one name, the first counts, as for `getenv`.
    package static func variables() -> [String: String] {
        var variables: [String: String] = [:]
        var entry = environ
        while let pointer = entry.pointee {
            let text = String(cString: pointer)
            if let equals = text.firstIndex(of: "="), variables[String(text[..<equals])] == nil {
                variables[String(text[..<equals])] = String(text[text.index(after: equals)...])
            }
            entry += 1
        }
        return variables
    }
}
