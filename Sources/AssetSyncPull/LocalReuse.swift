import AssetSyncCache
import AssetSyncModel
import AssetSyncSystem
import AssetSyncTransfer
import Glibc

/// The step before any download: each entry to fetch whose bytes a `ReuseFinder` locates on the
/// machine is copied from there into its partial, proven (`LocalCopy`) and committed by the normal
/// `Committer`, in groups; what cannot be reused that way is left for the transfers.
struct LocalReuse {
    let root: CacheRoot
    let finder: ReuseFinder
    let events: any PullEvents
    let stop: StopSource

    /// What the step did: the entries still to download, the results of those it committed, and
    /// their state records by path.
    struct Outcome {
        var remaining: [TransferEngine.Request] = []
        var results: [FileResult] = []
        var proofs: [String: StateIndex.Record] = [:]
    }

    /// How many filled partials (each an open descriptor) wait at most for one group commit.
    static let groupSize = 64

    func run(_ requests: [TransferEngine.Request]) -> Outcome {
        var outcome = Outcome()
        guard !finder.isEmpty else {
            outcome.remaining = requests
            return outcome
        }
        // The same names the transfers will give the same partials (a failed reuse leaves its partial empty).
        let names = PartialFile.uniqueNames(requests.map(\.entry.path))
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 4096)
        defer { buffer.deallocate() }
        var group: [(request: TransferEngine.Request, partial: PartialFile, from: String)] = []
        for request in requests {
            let candidates = stop.isRequested() ? [] : finder.candidates(for: request.entry)
            guard !candidates.isEmpty, let partial = try? PartialFile(
                root: root, entry: request.entry, name: names[request.entry.path]!, buffer: buffer, resumable: { _ in false })
            else {
                outcome.remaining.append(request)
                continue
            }
            guard let candidate = candidates.first(where: { LocalCopy.fill(partial, from: $0, buffer: buffer) != nil }) else {
                partial.discard()
                outcome.remaining.append(request)
                continue
            }
            group.append((request, partial, candidate.displayPath))
            if group.count >= Self.groupSize { commit(&group, into: &outcome) }
        }
        commit(&group, into: &outcome)
        return outcome
    }

    /// Commits the filled partials of `group` as one group; one that cannot be committed is left to download.
    private func commit(_ group: inout [(request: TransferEngine.Request, partial: PartialFile, from: String)], into outcome: inout Outcome) {
        for ((request, partial, from), error) in zip(group, Committer.commit(group.map(\.partial))) {
            var status = stat()
            guard error == nil, fstat(partial.fd, &status) == 0 else {
                outcome.remaining.append(request)
                continue
            }
            outcome.proofs[request.entry.path] = StateIndex.Record(LocalItem(status), crc32: request.entry.crc32, sha256: request.entry.sha256)
            let result = FileResult(
                path: request.entry.path, size: request.entry.size, action: request.action, outcome: .committed, reusedFrom: from)
            outcome.results.append(result)
            events.finished(result)
        }
        group.removeAll()
    }
}
