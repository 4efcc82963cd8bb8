import Glibc

/// How long-running work learns that it must stop (a signal, in the CLI): a flag it
/// checks, and a descriptor that becomes readable when the flag may have turned true,
/// so that a thread blocked in `poll` wakes at once.
package struct StopSource: Sendable {
    /// Readable once a stop may have been requested; -1 for none.
    package var wakeFD: Int32
    package var isRequested: @Sendable () -> Bool

    package init(wakeFD: Int32, isRequested: @escaping @Sendable () -> Bool) {
        self.wakeFD = wakeFD
        self.isRequested = isRequested
    }

    /// Work that is never asked to stop.
    package static let never = StopSource(wakeFD: -1, isRequested: { false })

    /// The one interruptible wait: sleeps `seconds` by `clock` (monotonic seconds), waking at once
    /// when a stop is requested; false when it was. Each poll lasts at most `slice` seconds, so that
    /// a caller with no wake descriptor still sees the flag that often.
    package func sleep(_ seconds: Double, clock: () -> Double = MonotonicClock.now, slice: Double = 1) -> Bool {
        let deadline = clock() + seconds
        while !isRequested() {
            let left = deadline - clock()
            guard left > 0 else { return true }
            var wake = pollfd(fd: wakeFD, events: Int16(POLLIN), revents: 0)
            _ = poll(&wake, 1, Int32((min(left, slice) * 1000).rounded(.up)))
        }
        return false
    }
}
