import AssetSyncModel

/// Whether a transfer still moves: some byte at least every `silence` seconds (a stall), and on
/// average at least `minimumRate` bytes a second over each `window` seconds (`--speed-limit` and
/// `--speed-time`), so that a server trickling a byte a second cannot hold a download for ever.
package struct Liveness {
    package enum Verdict: Equatable {
        /// No byte for `silence` seconds.
        case silent
        /// Fewer bytes than the minimum over a whole window: `bytes` in `seconds`.
        case slow(bytes: Int64, seconds: Int)
    }

    let silence: Double
    package let window: Int
    /// Bytes per second a window must average; 0 turns the check off.
    var minimumRate: Int64
    private var lastHeard: Double
    private var windowStart: Double
    private var windowBytes: Int64 = 0

    package init(silence: Int, minimumRate: Int64, window: Int, now: Double) {
        self.silence = Double(silence)
        self.minimumRate = minimumRate
        self.window = window
        lastHeard = now
        windowStart = now
    }

    /// Some bytes of the response arrived (`count` of them body bytes).
    mutating func heard(_ count: Int64 = 0, at now: Double) {
        lastHeard = now
        windowBytes += count
    }

    /// The verdict at `now`, or nil while the transfer moves; a window that met the minimum starts the next one.
    package mutating func check(at now: Double) -> Verdict? {
        if now - lastHeard > silence { return .silent }
        guard minimumRate > 0, now - windowStart >= Double(window) else { return nil }
        if Double(windowBytes) < Double(minimumRate) * Double(window) { return .slow(bytes: windowBytes, seconds: window) }
        windowStart = now
        windowBytes = 0
        return nil
    }

    /// A verdict in words, for a `retry` or `failed` line.
    package func describe(_ verdict: Verdict) -> String {
        switch verdict {
        case .silent:
            return "no data for \(Int(silence)) s (stalled)"
        case .slow(let bytes, let seconds):
            return "\(ByteCount.human(bytes)) in \(seconds) s, below the minimum of \(ByteCount.human(minimumRate))/s (stalled)"
        }
    }
}
