import Foundation
import Glibc

extension Process {
    /// `run()` with no signal blocked in the child.
    ///
    /// Foundation's `Process` spawns without `POSIX_SPAWN_SETSIGMASK`, so the child inherits the
    /// calling thread's signal mask, and the worker threads Swift Testing runs tests on block
    /// nearly every signal: a child started from a test with plain `run()` never receives
    /// SIGINT or SIGTERM (only SIGKILL works). This clears the calling thread's mask for the
    /// duration of the spawn. (The child also gets its own process group: signal its pid.)
    func runWithDefaultSignalMask() throws {
        var empty = sigset_t()
        var saved = sigset_t()
        sigemptyset(&empty)
        pthread_sigmask(SIG_SETMASK, &empty, &saved)
        defer { pthread_sigmask(SIG_SETMASK, &saved, nil) }
        try run()
    }

    /// The signals blocked in process `pid`, from `/proc/PID/status` (`SigBlk`), e.g. to check
    /// that a child can be interrupted; nil if unreadable.
    static func blockedSignals(of pid: Int32) -> UInt64? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("SigBlk:") }) else { return nil }
        return UInt64(line.dropFirst("SigBlk:".count).trimmingCharacters(in: .whitespaces), radix: 16)
    }
}
