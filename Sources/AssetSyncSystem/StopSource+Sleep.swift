package import AssetSyncModel
import Glibc

extension StopSource {
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
