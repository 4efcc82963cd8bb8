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
        public var interrupted: Bool
        /// A local failure (disk full, I/O error) stopped the run early.
        public var stoppedByLocalError: Bool
    }

    public func run() throws(SystemError) -> Outcome {
        let plan = SyncPlan(manifest: manifest, cache: try CacheScanner.scan(root: root.path))
        var results: [FileResult] = []
        var requests: [TransferEngine.Request] = []
        let toCheck = plan.items.filter { $0.action == .check }
        let checked = ContentCheck.matches(toCheck.map { entryByPath[$0.path]! }, in: root)
        let proven = Set(zip(toCheck, checked).filter { $0.1 }.map { $0.0.path })
        for item in plan.items where item.action != .extra {
            let entry = entryByPath[item.path]!
            if proven.contains(item.path) {
                finish(FileResult(path: entry.path, size: entry.size, action: .check, outcome: .current), into: &results)
            } else if entry.size == 0 {
                finish(commitEmpty(entry, action: item.action), into: &results)
            } else {
                requests.append(TransferEngine.Request(entry: entry, action: item.action, urls: manifest.sources(of: entry)))
            }
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
            }
            ending = box.ending
            results += box.results
        }
        return Outcome(results: results, interrupted: ending == .interrupted, stoppedByLocalError: ending == .stoppedByLocalError)
    }

    private var entryByPath: [String: ManifestEntry] {
        Dictionary(manifest.entries.map { ($0.path, $0) }, uniquingKeysWith: { first, _ in first })
    }

    private func commitEmpty(_ entry: ManifestEntry, action: SyncPlan.Action) -> FileResult {
        do {
            try Committer.commitEmpty(entry, in: root)
            return FileResult(path: entry.path, size: 0, action: action, outcome: .committed(transferred: 0))
        } catch {
            let failure: Failure
            switch error {
            case .mismatch(let reason): failure = Failure(isLocal: false, reason: reason)
            case .local(let error): failure = Failure(isLocal: true, reason: error.description)
            }
            return FileResult(path: entry.path, size: 0, action: action, outcome: .failed(failure))
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
}
