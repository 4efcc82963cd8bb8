/// One system call that returned, as `strace -f -y -tt` printed it: a call split by another
/// thread's lines (`<unfinished ...>` … `<... name resumed>`) is joined into one event.
struct SyscallEvent: Sendable {
    /// The thread that made the call (strace -f prints the tid, not the process id).
    var tid: Int
    var name: String
    /// The top-level arguments as printed, e.g. `7</dest/.assetsync/partial>` or `"a.part"`.
    var arguments: [String]
    /// What follows ` = `: `0`, `12</dest/a.bin>`, `-1 ENOENT (No such file or directory)`.
    var result: String
    /// The line (from 1) where the call started, and the line where it returned: a call that started
    /// after another returned (by line) happened after it.
    var line: Int
    var endLine: Int
    /// The line where the call started, as printed, to name it in a violation.
    var text: String

    var succeeded: Bool { !result.hasPrefix("-") && !result.hasPrefix("?") }

    /// The descriptor number and path of an argument printed under `-y` (`12</a/b>`, `AT_FDCWD</a>`);
    /// the number is `AT_FDCWD` (-100) for the latter, the path nil when strace printed none.
    static func descriptor(_ argument: String) -> (number: Int32, path: String?)? {
        let head = argument.prefix { $0 != "<" }
        let number: Int32
        if head == "AT_FDCWD" {
            number = -100
        } else if let parsed = Int32(head) {
            number = parsed
        } else {
            return nil
        }
        guard head.count < argument.count, argument.hasSuffix(">") else { return (number, nil) }
        var path = String(argument.dropFirst(head.count + 1).dropLast())
        if path.hasSuffix(" (deleted)") { path.removeLast(" (deleted)".count) }
        return (number, path.hasPrefix("/") ? path : nil)
    }

    /// The text of a quoted string argument (`"a.part"` → `a.part`), undoing strace's `\"` and `\\`.
    static func string(_ argument: String) -> String? {
        guard argument.count >= 2, argument.hasPrefix("\""), argument.hasSuffix("\"") else { return nil }
        var text = ""
        var escaped = false
        for character in argument.dropFirst().dropLast() {
            if escaped || character != "\\" {
                text.append(character)
                escaped = false
            } else {
                escaped = true
            }
        }
        return text
    }

    /// The absolute path that the pair (`directory` argument, `name` argument) names, as `*at` calls resolve it.
    func path(directory: Int, name: Int) -> String? {
        guard arguments.count > max(directory, name), let name = Self.string(arguments[name]) else { return nil }
        if name.hasPrefix("/") { return name }
        guard let base = Self.descriptor(arguments[directory])?.path else { return nil }
        return base == "/" ? "/" + name : base + "/" + name
    }
}
