package import AssetSyncModel
import AssetSyncSystem
import Glibc

/// `--splay`: a random wait before the first request, so that a fleet started by
/// the same timer does not reach the origin at one instant.
package enum Splay {
    /// Waits a random time up to `seconds`; returns true if a signal cut the wait short.
    package static func wait(upTo seconds: Double, stop: StopSource, clock: () -> Double = MonotonicClock.now) -> Bool {
        !stop.sleep(Double.random(in: 0...seconds), clock: clock)
    }
}
