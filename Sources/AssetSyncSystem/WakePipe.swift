import Glibc

/// A non-blocking pipe that one thread makes readable to wake another thread's `poll`: `signal()`
/// from any thread, `drain()` by the thread that polls `readEnd` before it looks again.
///
/// `Sendable`: its descriptors never change, and the calls on them are the kernel's.
package final class WakePipe: Sendable {
    /// The descriptor to poll for reading.
    package let readEnd: Int32
    private let writeEnd: Int32

    /// Nil when no pipe can be made (out of descriptors).
    package init?() {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return nil }
        for end in ends {
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            _ = fcntl(end, F_SETFL, O_NONBLOCK)
        }
        (readEnd, writeEnd) = (ends[0], ends[1])
    }

    deinit {
        close(readEnd)
        close(writeEnd)
    }

    /// Makes `readEnd` readable; a full pipe is readable already.
    package func signal() {
        var byte: UInt8 = 1
        _ = write(writeEnd, &byte, 1)
    }

    /// Reads every byte signalled so far: `readEnd` is not readable again until the next `signal()`.
    package func drain() {
        var bytes = [UInt8](repeating: 0, count: 64)
        while read(readEnd, &bytes, bytes.count) > 0 {}
    }
}
