import Glibc

/// Seconds since the epoch, as the system's clock says (a signature's expiry is judged by it).
package enum WallClock {
    package static func now() -> Int64 { Int64(time(nil)) }

    /// Now, with the fraction of the second.
    package static func preciseNow() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}
