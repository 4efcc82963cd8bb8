public import AssetSyncSystem
import Glibc

/// `--splay`: a random wait before the first request, so that a fleet started by
/// the same timer does not reach the origin at one instant.
public enum Splay {
    /// Waits a random time up to `seconds`; returns true if a signal cut the wait short.
    public static func wait(upTo seconds: Double, stop: StopSource) -> Bool {
        let deadline = MonotonicClock.now() + Double.random(in: 0...seconds)
        while true {
            if stop.isRequested() { return true }
            let left = deadline - MonotonicClock.now()
            if left <= 0 { return false }
            var wake = pollfd(fd: stop.wakeFD, events: Int16(POLLIN), revents: 0)
            _ = poll(&wake, 1, Int32(min(left, 1) * 1000) + 1)
        }
    }
}
