package import AssetSync
import Glibc
import Synchronization

/// Where a command's output goes: standard output for results, standard error for people.
///
/// The first failed write to standard output is kept (and nothing more is written there), so
/// that the command can end with it: see `checkOutput`.
package struct Console: Sendable {
    package var output: Int32 = STDOUT_FILENO
    package var errors: Int32 = STDERR_FILENO
    /// The `errno` of the first failed write to `output`, 0 while none failed.
    private let outputError = OutputError()

    package func out(_ text: String) {
        guard outputError.code.load(ordering: .acquiring) == 0 else { return }
        let code = Self.write(text, to: output)
        if code != 0 { _ = outputError.code.compareExchange(expected: 0, desired: code, ordering: .acquiringAndReleasing) }
    }

    /// Written as far as stderr takes it: there is nowhere left to report a failure there.
    package func err(_ text: String) { _ = Self.write(text, to: errors) }

    /// Ends a command with exit 3 and a message naming `what` (such as "the plan") when a write to
    /// standard output failed. With `closedByReader` false, a reader that went away (EPIPE) counts
    /// as such a failure too; a pull passes true, since its events only accompany its work.
    package func checkOutput(_ what: String, allowingClosedByReader closedByReader: Bool) throws(ExitStatus) {
        let code = outputError.code.load(ordering: .acquiring)
        guard code != 0, !(closedByReader && code == EPIPE) else { return }
        err("Error: cannot write \(what) to standard output: \(String(cString: strerror(code))).\n")
        throw .localIOFailure
    }

    /// Writes all of `text`, retrying interrupted and short writes; returns the `errno` of a failure, or 0.
    private static func write(_ text: String, to fd: Int32) -> Int32 {
        var text = text
        return text.withUTF8 { bytes in
            var done = 0
            while done < bytes.count {
                let written = Glibc.write(fd, bytes.baseAddress! + done, bytes.count - done)
                if written < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                done += written
            }
            return 0
        }
    }
}

/// The first write error on standard output, shared by every copy of a `Console` and every thread.
private final class OutputError: Sendable {
    let code = Atomic<Int32>(0)
}

extension Console {
    /// Tells a failure: "Error: " and `text` on stderr; the exit status of `kind`, to end the command with.
    package func failed(_ text: String, _ kind: ErrorKind) -> ExitStatus {
        err("Error: " + text)
        return ExitStatus(kind)
    }

    /// The terminal's columns, read each time so that resizing is followed.
    package var errorsWidth: Int {
        var size = winsize()
        return ioctl(errors, UInt(TIOCGWINSZ), &size) == 0 && size.ws_col > 0 ? Int(size.ws_col) : 80
    }
}
