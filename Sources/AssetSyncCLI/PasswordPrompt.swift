import Glibc

/// A password typed on the controlling terminal (`/dev/tty`, not standard input) with echo off,
/// as minisign asks for it: to decrypt an encrypted secret key.
enum PasswordPrompt {
    /// The longest password read, as minisign's.
    static let limit = 1024

    /// The line typed after `prompt`, without its line end; nil when the process has no terminal.
    static func ask(_ prompt: String) -> [UInt8]? {
        let tty = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard tty >= 0 else { return nil }
        defer { close(tty) }
        var saved = termios()
        let hidden = tcgetattr(tty, &saved) == 0
        if hidden {
            var quiet = saved
            quiet.c_lflag &= ~tcflag_t(ECHO)
            // TCSANOW, not TCSAFLUSH: what was typed ahead is the password, not noise to drop.
            tcsetattr(tty, TCSANOW, &quiet)
        }
        defer { if hidden { tcsetattr(tty, TCSANOW, &saved) } }
        _ = prompt.withCString { write(tty, $0, strlen($0)) }
        var password: [UInt8] = []
        var byte: UInt8 = 0
        while password.count < limit {
            let got = read(tty, &byte, 1)
            if got < 0, errno == EINTR { continue }
            if got <= 0 || byte == UInt8(ascii: "\n") { break }
            password.append(byte)
        }
        if password.last == UInt8(ascii: "\r") { password.removeLast() }
        _ = write(tty, "\n", 1)
        return password
    }
}
