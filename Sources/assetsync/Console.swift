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
