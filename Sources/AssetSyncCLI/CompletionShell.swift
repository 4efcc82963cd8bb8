/// A shell that `assetsync --generate-completion-script SHELL` writes a completion script for.
package enum CompletionShell: String, CaseIterable, Sendable {
    case bash, zsh, fish

    /// The script, for the commands and options of `outline`.
    package func script(for outline: CompletionOutline = .tool) -> String {
        switch self {
        case .bash: BashCompletionScript.render(outline)
        case .zsh: ZshCompletionScript.render(outline)
        case .fish: FishCompletionScript.render(outline)
        }
    }

    /// The shell function that completes `command`'s words: `_assetsync_pull`.
    static func functionName(_ command: CompletionOutline.Command) -> String {
        "_assetsync_" + String(command.name.map { $0.isLetter || $0.isNumber ? $0 : "_" })
    }

    /// `text` as one single-quoted word of a POSIX shell or zsh.
    static func quoted(_ text: String) -> String { "'" + text.replacing("'", with: "'\\''") + "'" }
}
