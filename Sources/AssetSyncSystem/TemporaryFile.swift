import Glibc

/// A new empty file of this process's own in a directory (`TMPDIR`'s, for a fetch with nowhere else
/// to go), removed when the value goes.
package final class TemporaryFile {
    package let path: String

    /// Makes `directory/prefix-XXXXXX` with mode 0600; nil when the directory will not have it.
    package init?(in directory: String, prefix: String) {
        var template = Array((directory + "/" + prefix + "-XXXXXX").utf8CString)
        let made: String? = template.withUnsafeMutableBufferPointer { buffer in
            let fd = mkstemp(buffer.baseAddress!)
            guard fd >= 0 else { return nil }
            close(fd)
            return String(cString: buffer.baseAddress!)
        }
        guard let made else { return nil }
        path = made
    }

    deinit { unlink(path) }

    /// The directory temporary files go to: `TMPDIR` of `environment` when it names one, else /tmp.
    package static func directory(in environment: [String: String]) -> String {
        environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
    }

    /// The directory temporary files of this process go to, by its `TMPDIR`.
    package static var processDirectory: String {
        directory(in: getenv("TMPDIR").map { ["TMPDIR": String(cString: $0)] } ?? [:])
    }
}
