package import AssetSyncModel
import Glibc

/// A failed system call: which call, on which path, and the `errno` it set.
package struct SystemError: ExplainedError, Equatable, CustomStringConvertible {
    package var call: String
    package var path: String?
    package var code: Int32

    /// `code` defaults to the current `errno`.
    package init(_ call: String, path: String? = nil, code: Int32? = nil) {
        self.call = call
        self.path = path
        self.code = code ?? errno
    }

    /// The C library's text for the error, such as "No such file or directory".
    package var reason: String { String(cString: strerror(code)) }

    package var kind: ErrorKind { .localIO }

    /// Errors after which no other file can be written either (disk full, quota, I/O error, read-only).
    package var stopsTheRun: Bool { [ENOSPC, EDQUOT, EIO, EROFS].contains(code) }

    package var description: String {
        if let path { return "\(call) '\(path)': \(reason)" }
        return "\(call): \(reason)"
    }
}

/// Runs `body` until it stops failing with `EINTR`; any other failure throws a `SystemError`.
@inline(__always)
package func retryingInterrupts<T: BinaryInteger>(
    _ call: String, path: String? = nil, _ body: () -> T
) throws(SystemError) -> T {
    while true {
        let result = body()
        if result >= 0 { return result }
        if errno != EINTR { throw SystemError(call, path: path) }
    }
}
