package import AssetSync
import Synchronization

/// A pull's output for people, on stderr. On a terminal (`live`), a progress
/// block redrawn at most ten times a second, fitted to the terminal's width,
/// with each file's line printed above it and the block erased at the end.
/// Elsewhere (logs, pipes, TERM=dumb), plain lines only: one per fetched or
/// failed file and a progress line every ten seconds. `quiet` keeps failures.
package final class HumanPullReporter: PullEvents {
    /// Where and how the output goes; injected so that tests drive the clock and the width.
    package struct Output: Sendable {
        package var write: @Sendable (String) -> Void
        package var clock: @Sendable () -> Double
        /// The terminal's current columns (read at each redraw, so resizing is followed).
        package var width: @Sendable () -> Int
        package var live: Bool

        package init(
            write: @escaping @Sendable (String) -> Void, clock: @escaping @Sendable () -> Double,
            width: @escaping @Sendable () -> Int, live: Bool
        ) {
            self.write = write
            self.clock = clock
            self.width = width
            self.live = live
        }
    }

    package static let redrawInterval = 0.1
    package static let plainProgressInterval = 10.0

    private struct State {
        var shownLines = 0
        var lastDraw = -Double.infinity
        var lastPlainProgress: Double
        var latest: ProgressSnapshot?
        var meter = RateMeter()
        var transferMeters: [String: RateMeter] = [:]
    }

    private let output: Output
    private let quiet: Bool
    private let state: Mutex<State>

    package init(output: Output, quiet: Bool) {
        self.output = output
        self.quiet = quiet
        state = Mutex(State(lastPlainProgress: output.clock()))
    }

    package func planned(_ plan: SyncPlan) {}

    package func started(path: String, size: Int64, resumingAt offset: Int64, url: String) {}

    package func retrying(path: String, reason: String, after delay: Double) {
        say(PullLines.retry(path: path, reason: reason, after: delay), important: false)
    }

    package func restarted(path: String, discarded: Int64, reason: String) {
        say(PullLines.restart(path: path, discarded: discarded, reason: reason), important: false)
    }

    package func finished(_ result: FileResult) {
        guard let (text, isFailure) = PullLines.finished(result) else { return }
        say(text, important: isFailure)
    }

    /// Told whatever `quiet` says, above the live block.
    package func warned(_ text: String) {
        state.withLock { state in output.write(erase(&state) + "Warning: \(text).\n") }
    }

    package func deleted(path: String) {
        say(PullLines.deleted(path: path), important: false)
    }

    package func progress(_ snapshot: ProgressSnapshot) {
        guard !quiet else { return }
        let now = output.clock()
        state.withLock { state in
            state.meter.record(snapshot.bytesDone, at: now)
            var meters: [String: RateMeter] = [:]
            for transfer in snapshot.transfers {
                var meter = state.transferMeters[transfer.path] ?? RateMeter()
                meter.record(transfer.done, at: now)
                meters[transfer.path] = meter
            }
            state.transferMeters = meters
            state.latest = snapshot
            if output.live {
                guard now - state.lastDraw >= Self.redrawInterval else { return }
                output.write(erase(&state) + block(&state, at: now))
            } else if now - state.lastPlainProgress >= Self.plainProgressInterval {
                state.lastPlainProgress = now
                output.write(PullLines.progress(snapshot, rate: state.meter.bytesPerSecond))
            }
        }
    }

    /// Erases the live block and prints the closing lines.
    package func summarize(_ outcome: PullOutcome, seconds: Double) {
        let text = PullLines.summary(outcome, seconds: seconds, quiet: quiet)
        state.withLock { state in
            state.latest = nil
            let erasing = erase(&state)
            if !(erasing + text).isEmpty { output.write(erasing + text) }
        }
    }

    /// A line above the live block (which is then drawn again), or a plain line.
    private func say(_ text: String, important: Bool) {
        guard !quiet || important else { return }
        state.withLock { state in
            output.write(erase(&state) + text + block(&state, at: output.clock()))
        }
    }

    /// Moves back to the block's first line and clears to the end of the screen.
    private func erase(_ state: inout State) -> String {
        defer { state.shownLines = 0 }
        return state.shownLines > 0 ? "\u{1B}[\(state.shownLines)F\u{1B}[J" : ""
    }

    private func block(_ state: inout State, at now: Double) -> String {
        guard output.live, !quiet, let snapshot = state.latest else { return "" }
        let lines = ProgressLines.render(
            snapshot, width: output.width(), rate: state.meter.bytesPerSecond,
            transferRates: state.transferMeters.compactMapValues(\.bytesPerSecond))
        state.shownLines = lines.count
        state.lastDraw = now
        return lines.joined(separator: "\n") + "\n"
    }
}
