import Foundation

/// Polls `condition` (every 5 ms unless `interval` says otherwise) until it holds (true) or `timeout`
/// seconds pass (false): how a test waits for something to happen, instead of sleeping for a time
/// it hopes is long enough.
public func waitUntil(
    timeout: Double = 10, polling interval: Duration = .milliseconds(5), _ condition: () throws -> Bool
) rethrows -> Bool {
    let deadline = ContinuousClock.now + .seconds(timeout)
    while try !condition() {
        if ContinuousClock.now >= deadline { return false }
        usleep(UInt32(interval / .microseconds(1)))
    }
    return true
}
