import Synchronization
@testable import AssetSyncModel

/// The events of a pull as lines, in the order they arrived; `onStarted` is told each download
/// that starts (a test's way to press ^C at a given moment).
final class RecordingEvents: PullEvents {
    private let recorded = Mutex<[String]>([])
    let onStarted: @Sendable (String) -> Void

    init(onStarted: @escaping @Sendable (String) -> Void = { _ in }) { self.onStarted = onStarted }

    var lines: [String] { recorded.withLock { $0 } }

    private func record(_ line: String) { recorded.withLock { $0.append(line) } }

    func planned(_ plan: SyncPlan) { record("planned " + plan.items.map { "\($0.action) \($0.path)" }.joined(separator: ", ")) }

    func started(path: String, size: Int64, resumingAt offset: Int64, url: String) {
        record("started \(path) at \(offset) from \(url)")
        onStarted(path)
    }

    func retrying(path: String, reason: String, after delay: Double) { record("retry \(path): \(reason)") }

    func restarted(path: String, discarded: Int64, reason: String) { record("restarted \(path): \(discarded) bytes dropped, \(reason)") }

    func finished(_ result: FileResult) { record("finished \(result.path): \(result.outcome)") }

    func deleted(path: String) { record("deleted \(path)") }

    func progress(_ snapshot: ProgressSnapshot) {}

    func warned(_ text: String) { record("warning \(text)") }

    func published(generation: String) { record("published \(generation)") }

    func refused(_ refusal: TrustRefusal, manifest: String) { record("refused \(refusal.code)") }

    func verified(_ entry: ManifestEntry, _ verdict: ContentVerdict) { record("verified \(entry.path): \(verdict)") }
}
