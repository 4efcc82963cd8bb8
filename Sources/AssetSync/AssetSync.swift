import AssetSyncModel
import AssetSyncPull
import AssetSyncSystem

/// assetsync as a library: keep a local cache directory identical to a manifest of remote files,
/// every file proven by its size, CRC-32 (and SHA-256) before it becomes visible.
///
/// Each entry point runs its request on a thread of its own, so it never blocks Swift's cooperative
/// pool, and stops when the calling task is cancelled: a pull then keeps its partial downloads, and
/// the next one resumes them. See the DocC catalog's articles for the event model and errors.
public enum AssetSync {
    /// Pulls: downloads what is missing or changed (or copies it from this machine), proves it, and
    /// commits it; `observe` hears every event as it happens (from other threads). Throws when the
    /// pull cannot run at all (a bad manifest, a destination that cannot be opened or is locked, the
    /// task cancelled before it started); a pull that ran returns its report, failures included.
    public static func pull(
        _ request: PullRequest, observe: @escaping @Sendable (PullEvent) -> Void = { _ in }
    ) async throws(AssetSyncError) -> PullReport {
        let report = try await run { stop throws(AssetSyncError) in
            try RequestRun(request: request, stop: stop).pull(events: EventRelay(observe: observe))
        }
        if report.interrupted, Task.isCancelled { throw .cancelled }
        return report
    }

    /// The same pull as a sequence of its events, the last one `.completed` with the report; it throws
    /// the `AssetSyncError` a pull that cannot run throws. Ending the iteration (or cancelling the task
    /// that iterates) stops the pull.
    public static func events(of request: PullRequest) -> AsyncThrowingStream<PullEvent, any Error> {
        AsyncThrowingStream { continuation in
            let task = Task {
                do {
                    let report = try await pull(request) { continuation.yield($0) }
                    continuation.yield(.completed(report))
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// What a pull would do, from the state index and a walk of the destination: nothing is read or
    /// fetched but the manifest (a remote one into a temporary file), and nothing is made or locked.
    public static func plan(_ request: PullRequest) async throws(AssetSyncError) -> PlanSummary {
        try await run { stop throws(AssetSyncError) in try RequestRun(request: request, stop: stop).plan() }
    }

    /// Reads every file of the manifest in the destination and proves it, whatever the state index
    /// says, recording what was proven; a file found missing or corrupt is named with why.
    public static func verify(_ request: PullRequest) async throws(AssetSyncError) -> VerifyReport {
        try await run { stop throws(AssetSyncError) in try RequestRun(request: request, stop: stop).verify() }
    }

    /// Points a destination in generations (`PullRequest.Layout.generations`) back at the one before
    /// the current one, once that one is found as its pull left it: every file its state index records
    /// there with the size, modification time and inode it was proven with, and, `readingEveryFile`,
    /// the checksums too. Returns the generation the destination shows now.
    public static func rollback(destination: String, readingEveryFile: Bool = false, lockWaitSeconds: Double = 0) async throws(AssetSyncError) -> String {
        try await run { stop throws(AssetSyncError) in
            do throws(PullRunFailure) {
                return try PullRun.rollback(
                    dest: destination, reading: readingEveryFile, lockWait: lockWaitSeconds, effects: PullRun.Effects(stop: stop), events: NoEvents()
                ).shows
            } catch {
                throw AssetSyncError(error)
            }
        }
    }

    /// Runs `body` on a thread of its own with a stop source that the calling task's cancellation sets.
    static func run<Value: Sendable>(
        _ body: @escaping @Sendable (StopSource) throws(AssetSyncError) -> Value
    ) async throws(AssetSyncError) -> Value {
        try Runtime.ready()
        guard let stop = CancellationStop() else { throw AssetSyncError(kind: .localIO, message: "cannot make a pipe to stop the request by") }
        if Task.isCancelled { throw .cancelled }
        let result: Result<Value, AssetSyncError> = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let started = JoinableThread.detached {
                    continuation.resume(returning: Result { () throws(AssetSyncError) in try body(stop.source) })
                }
                if !started { continuation.resume(returning: .failure(AssetSyncError(kind: .localIO, message: "cannot start a thread"))) }
            }
        } onCancel: {
            stop.request()
        }
        return try result.get()
    }
}
