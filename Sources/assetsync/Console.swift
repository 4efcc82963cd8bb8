import AssetSync
import Glibc

/// Where a command's output goes: standard output for results, standard error for people.
struct Console {
    var output: Int32 = STDOUT_FILENO
    var errors: Int32 = STDERR_FILENO

    func out(_ text: String) { write(text, to: output) }
    func err(_ text: String) { write(text, to: errors) }

    private func write(_ text: String, to fd: Int32) {
        var text = text
        text.withUTF8 { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = Glibc.write(fd, bytes.baseAddress! + offset, bytes.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    return
                }
                offset += written
            }
        }
    }
}

extension Console {
    /// Whether stderr is a terminal that can redraw a progress block (not TERM=dumb).
    var errorsGoToTerminal: Bool {
        guard isatty(errors) == 1 else { return false }
        return getenv("TERM").map { String(cString: $0) != "dumb" } ?? false
    }

    /// The terminal's columns, read each time so that resizing is followed.
    var errorsWidth: Int {
        var size = winsize()
        return ioctl(errors, UInt(TIOCGWINSZ), &size) == 0 && size.ws_col > 0 ? Int(size.ws_col) : 80
    }

    /// People's output on stderr (live on a terminal) and, with `json`, events on stdout.
    func pullReporters(quiet: Bool, json: Bool) -> PullReporters {
        let console = self
        let human = HumanPullReporter(
            output: .init(
                write: { console.err($0) }, clock: { MonotonicClock.now() }, width: { console.errorsWidth },
                live: errorsGoToTerminal),
            quiet: quiet)
        let events = json ? JSONPullReporter(write: { console.out($0) }, clock: { MonotonicClock.now() }) : nil
        return PullReporters(human: human, json: events)
    }
}
