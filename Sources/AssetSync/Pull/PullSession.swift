import Glibc

/// One `pull`: plan against the cache, prove same-size files by CRC, create
/// empty files, download the rest in parallel, and report each file.
public struct PullSession {
    public let manifest: Manifest
    public let root: CacheRoot
    public let options: TransferOptions
    public let reporter: any PullReporter

    public init(manifest: Manifest, root: CacheRoot, options: TransferOptions, reporter: any PullReporter) {
        self.manifest = manifest
        self.root = root
        self.options = options
        self.reporter = reporter
    }

    /// How the run ended, with every file's result.
    public struct Outcome: Sendable {
        public var results: [FileResult]
        /// Files `--delete` removed, and those it could not.
        public var deletion = ExtraRemoval.Outcome()
        public var interrupted: Bool
        /// A local failure (disk full, I/O error) stopped the run early.
        public var stoppedByLocalError: Bool
    }

    /// Why a pull could not start.
    public enum StartError: Error {
        case scan(SystemError)
        case state(SystemError)
        /// The bytes still to fetch (less those already in partials, plus a margin) exceed the free space.
        case notEnoughSpace(DiskSpace.Shortfall)
        /// `--delete` on a directory assetsync did not manage before this run.
        case deleteInUnmanagedDirectory
        /// `--delete` would remove more files than `--max-delete` allows.
        case tooManyDeletions(count: Int, maximum: Int)
    }

    /// Runs the pull. With `verifyAll`, the state index is ignored and every present
    /// file of the right size is read and proven again. With `deleteUpTo`, files the
    /// manifest does not list are removed afterwards, unless there are more than that.
    public func run(verifyAll: Bool = false, deleteUpTo maximumDeletions: Int? = nil) throws(StartError) -> Outcome {
        let plan: SyncPlan
        do { plan = SyncPlan(manifest: manifest, cache: try CacheScanner.scan(root: root.path)) } catch { throw .scan(error) }
        reporter.planned(plan)
        let extras = plan.items.filter { $0.action == .extra }.map(\.path)
        if let maximumDeletions {
            guard root.wasManagedBefore || extras.isEmpty else { throw .deleteInUnmanagedDirectory }
            guard extras.count <= maximumDeletions else { throw .tooManyDeletions(count: extras.count, maximum: maximumDeletions) }
        }
        let kept = PartialDirectory.sweep(root, entries: Dictionary(manifest.entries.map { ($0.path, $0) }, uniquingKeysWith: { a, _ in a }))
        let previous = StateIndex.load(from: root)
        var proofs: [String: StateIndex.Record] = [:]
        proofs.reserveCapacity(manifest.entries.count)
        /// Proofs taken over from the previous index unchanged.
        var carried = 0
        var results: [FileResult] = []
        var requests: [TransferEngine.Request] = []
        // SyncPlan lists the manifest's entries first, in order.
        let items = zip(manifest.entries, plan.items)
        var toRead: [ManifestEntry] = []
        for (entry, item) in items where item.action == .check {
            if !verifyAll, let record = previous.records[entry.path], record.crc32 == entry.crc32, record.describes(item.local!) {
                proofs[entry.path] = record
                carried += 1
            } else {
                toRead.append(entry)
            }
        }
        for (entry, verdict) in zip(toRead, ContentCheck.verdicts(of: toRead, in: root)) {
            proofs[entry.path] = verdict.proof
        }
        for (entry, item) in items {
            if item.action == .check, proofs[entry.path] != nil {
                finish(FileResult(path: entry.path, size: entry.size, action: .check, outcome: .current), into: &results)
            } else if entry.size == 0 {
                let (result, proof) = commitEmpty(entry, action: item.action)
                proofs[entry.path] = proof
                finish(result, into: &results)
            } else {
                requests.append(TransferEngine.Request(entry: entry, action: item.action, urls: manifest.sources(of: entry)))
            }
        }
        let toFetch = requests.reduce(Int64(0)) { $0 + $1.entry.size }
        let have = requests.reduce(Int64(0)) { $0 + (kept[$1.entry.path] ?? 0) }
        if let shortfall = DiskSpace.shortfall(in: root.path, toFetch: toFetch, alreadyHave: have) {
            throw .notEnoughSpace(shortfall)
        }
        var ending = TransferEngine.Ending.finished
        if Interruption.requested {
            ending = .interrupted
            for request in requests {
                finish(FileResult(path: request.entry.path, size: request.entry.size, action: request.action, outcome: .interrupted), into: &results)
            }
        } else if !requests.isEmpty {
            let box = ResultBox()
            let (root, options, reporter) = (self.root, self.options, self.reporter)
            DedicatedThread.run {
                let engine = TransferEngine(
                    requests: requests, root: root, options: options, reporter: reporter,
                    wakeFD: Interruption.wakeFD, shouldStop: { Interruption.requested })
                box.ending = engine.run()
                box.results = engine.results
                box.proofs = engine.proofs
            }
            ending = box.ending
            results += box.results
            proofs.merge(box.proofs) { _, new in new }
        }
        do { try saveState(proofs: proofs, previous: previous, fresh: proofs.count != carried) } catch { throw .state(error) }
        var outcome = Outcome(results: results, interrupted: ending == .interrupted, stoppedByLocalError: ending == .stoppedByLocalError)
        if maximumDeletions != nil, ending == .finished, !extras.isEmpty {
            outcome.deletion = ExtraRemoval.remove(extras, in: root)
            for path in outcome.deletion.removed { reporter.deleted(path: path) }
        }
        return outcome
    }

    /// Records what this run proved; entries it could not prove keep their old record, whose CRC
    /// no longer matches a changed entry. Paths the manifest no longer lists are forgotten.
    private func saveState(proofs: [String: StateIndex.Record], previous: StateIndex, fresh: Bool) throws(SystemError) {
        // Nothing newly proven and every old record still listed: the index on disk stays as it is.
        if !fresh, proofs.count == previous.records.count { return }
        var next = StateIndex()
        next.records.reserveCapacity(manifest.entries.count)
        for entry in manifest.entries {
            if let record = proofs[entry.path] ?? previous.records[entry.path] { next.records[entry.path] = record }
        }
        if next != previous { try next.save(to: root) }
    }

    private func commitEmpty(_ entry: ManifestEntry, action: SyncPlan.Action) -> (FileResult, StateIndex.Record?) {
        do {
            let proof = try Committer.commitEmpty(entry, in: root)
            return (FileResult(path: entry.path, size: 0, action: action, outcome: .committed), proof)
        } catch {
            let failure: Failure
            switch error {
            case .mismatch(let reason): failure = Failure(isLocal: false, reason: reason)
            case .local(let error): failure = Failure(isLocal: true, reason: error.description)
            }
            return (FileResult(path: entry.path, size: 0, action: action, outcome: .failed(failure)), nil)
        }
    }

    private func finish(_ result: FileResult, into results: inout [FileResult]) {
        results.append(result)
        reporter.finished(result)
    }
}

/// Carries the engine's results back from its thread, which is joined before they are read.
private final class ResultBox: @unchecked Sendable {
    var ending = TransferEngine.Ending.finished
    var results: [FileResult] = []
    var proofs: [String: StateIndex.Record] = [:]
}
