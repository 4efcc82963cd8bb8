package import AssetSyncCache
package import AssetSyncModel
package import AssetSyncSystem
package import AssetSyncTransfer
import Glibc

/// One `pull`: plan against the cache, prove same-size files by CRC, create
/// empty files, download the rest in parallel, and report each file.
package struct PullSession {
    package let manifest: Manifest
    package let root: CacheRoot
    package let options: TransferOptions
    /// The one sink of everything the pull does, file by file.
    package let events: any PullEvents
    /// Stops the transfers (keeping partials) when a stop is requested.
    package let stop: StopSource
    /// Monotonic seconds, for retries, stalls, progress and commit groups.
    package let clock: @Sendable () -> Double
    /// What carries the downloads: libcurl, or a fake in unit tests.
    let transport: any Transport
    /// Directories besides DEST whose files may be copied instead of downloaded (`--reuse-from`, another
    /// generation), searched in this order after DEST's own files.
    package let reuseFrom: [ReuseSource]

    package init(
        manifest: Manifest, root: CacheRoot, options: TransferOptions, events: any PullEvents, stop: StopSource,
        clock: @escaping @Sendable () -> Double = MonotonicClock.now, transport: any Transport = CurlTransport(),
        reuseFrom: [ReuseSource] = []
    ) {
        self.reuseFrom = reuseFrom
        self.clock = clock
        self.transport = transport
        self.manifest = manifest
        self.root = root
        self.options = options
        self.events = events
        self.stop = stop
    }

    /// Why a pull could not start.
    package enum StartError: Error {
        case scan(SystemError)
        /// The state index is there but cannot be read: whether files are current, and whether DEST is
        /// managed, must not be guessed.
        case readState(SystemError)
        case state(SystemError)
        /// The bytes still to fetch (less those already in partials, plus a margin) exceed the free space.
        case notEnoughSpace(DiskShortfall)
        /// `--delete` on a directory no earlier run completed in (it has no committed state index).
        case deleteInUnmanagedDirectory
        /// `--delete` would remove more files than `--max-delete` allows.
        case tooManyDeletions(count: Int, maximum: Int)
    }

    /// Runs the pull. With `verifyAll`, the state index is ignored and every present
    /// file of the right size is read and proven again. With `deleteUpTo`, files the
    /// manifest does not list are removed afterwards, unless there are more than that.
    /// `walk` is the cache's walk when the caller started it early; by default it starts here, and runs
    /// while this thread reads the state index and matches it with the manifest. `index` is the state
    /// index the caller already read or wrote in the cache directory under the lock, if it has one.
    package func run(
        verifyAll: Bool = false, deleteUpTo maximumDeletions: Int? = nil, walk: CacheWalk? = nil, index: StateIndex? = nil
    ) throws(StartError) -> PullOutcome {
        let walk = walk ?? CacheWalk(root)
        // Read under the lock: only a run that got as far as saving an index leaves one, so it also
        // says whether DEST is managed (`--delete`).
        var committed = index
        if committed == nil {
            do { committed = try StateIndex.committed(in: root) } catch { throw .readState(error) }
        }
        // The previous record of each entry, by entry index: one merge-join, no dictionary.
        let order = PathOrder.sortedIndices(of: manifest.entries)
        let previous = committed?.proofs(sharingPathsWith: manifest.entries, inOrder: order) ?? EntryColumn(count: manifest.entries.count)
        let plan: SyncPlan
        switch walk.listing() {
        case .success(let cache): plan = SyncPlan(manifest: manifest, cache: cache, proofs: verifyAll ? nil : previous, inOrder: order)
        case .failure(let error): throw .scan(error)
        }
        events.planned(plan)
        var extras = plan.items[manifest.entries.count...].map(\.path)  // after the entries, all extras
        var deletion = PullOutcome.Deletion()
        if let maximumDeletions {
            guard committed != nil || extras.isEmpty else { throw .deleteInUnmanagedDirectory }
            guard extras.count <= maximumDeletions else { throw .tooManyDeletions(count: extras.count, maximum: maximumDeletions) }
            let directoriesAtFiles = plan.items.filter { $0.action == .changed && $0.local?.kind == .directory }.map(\.path)
            (deletion, extras) = ExtraRemoval.clearObstructions(
                extras: extras, directoriesAtFiles: directoriesAtFiles, manifestPaths: manifest.entries.map(\.path), in: root)
            for path in deletion.removed { events.deleted(path: path) }
        }
        let kept = PartialDirectory.sweep(root, entries: Dictionary(manifest.entries.map { ($0.path, $0) }, uniquingKeysWith: { a, _ in a }))
        /// What this run holds proven, by entry index: the previous records of the entries found
        /// current (a current entry always has one), then what the run proves.
        var proofs = previous
        proofs.clear { plan.items.action(at: $0) != .current }
        /// Proofs taken over from the previous index unchanged.
        var carried = 0
        var results: [FileResult] = []
        results.reserveCapacity(manifest.entries.count)
        var requests: [TransferEngine.Request] = []
        // SyncPlan lists the manifest's entries first, in order. The loops over them read only the
        // fields they need: copying whole entries and items (a retain and release of every string
        // in them) was a tenth of a no-op's time.
        var toRead: [Int] = []
        for index in manifest.entries.indices {
            switch plan.items.action(at: index) {
            case .current: carried += 1
            case .check: toRead.append(index)
            case .new, .changed, .extra: break
            }
        }
        // A stop while they are read proves none of them; the run then ends as interrupted, below.
        let verdicts = ContentCheck.verdicts(of: toRead.map { manifest.entries[$0] }, in: root, until: stop.isRequested) ?? []
        for (index, verdict) in zip(toRead, verdicts) {
            proofs[index] = verdict.proof
        }
        var empties: [(entry: ManifestEntry, action: SyncPlan.Action, index: Int)] = []
        manifest.entries.withUnsafeBufferPointer { entries in
            for index in entries.indices {
                let action = plan.items.action(at: index)
                let (path, size) = (entries[index].path, entries[index].size)
                if action == .current || (action == .check && proofs[index] != nil) {
                    finish(FileResult(path: path, size: size, action: action, outcome: .current), into: &results)
                } else if size == 0 {
                    empties.append((entries[index], action, index))
                } else {
                    let entry = entries[index]
                    requests.append(TransferEngine.Request(entry: entry, action: action, sources: manifest.sources(of: entry)))
                }
            }
        }
        for start in stride(from: 0, to: empties.count, by: Committer.emptyGroupSize) {
            let group = empties[start..<min(start + Committer.emptyGroupSize, empties.count)]
            for (empty, outcome) in zip(group, Committer.commitEmpty(group.map(\.entry), in: root)) {
                let (result, proof) = emptyResult(empty.entry, action: empty.action, outcome)
                proofs[empty.index] = proof
                finish(result, into: &results)
            }
        }
        let reused = LocalReuse(
            root: root, finder: ReuseFinder(
                sources: [ReuseSource(destination: root, index: committed ?? StateIndex(), recordsVouch: !verifyAll)] + reuseFrom,
                for: requests.map(\.entry)),
            events: events, stop: stop
        ).run(requests)
        requests = reused.remaining
        results += reused.results
        // Room is needed for what is left to download: a reused file took its room as it was copied
        // (a copy that found none is downloaded, and counted here), or none at all (a clone).
        let toFetch = requests.lazy.map(\.entry.size).saturatingSum()
        let have = requests.lazy.map { kept[$0.entry.path] ?? 0 }.saturatingSum()
        if !stop.isRequested(), let shortfall = DiskSpace.shortfall(in: root.path, toFetch: toFetch, alreadyHave: have) {
            throw .notEnoughSpace(shortfall)
        }
        DeltaPreparation(root: root, stop: stop).run(requests)
        var newProofs = reused.proofs
        var ending = TransferEngine.Ending.finished
        let steps = StepTimes()
        if stop.isRequested() {
            ending = .interrupted
            for request in requests {
                finish(FileResult(path: request.entry.path, size: request.entry.size, action: request.action, outcome: .interrupted), into: &results)
            }
        } else if !requests.isEmpty {
            let (root, options, events, stop, clock, transport) = (self.root, self.options, self.events, self.stop, self.clock, self.transport)
            let transferred = JoinableThread.run {
                let transfers = PullTransfers(
                    requests: requests, root: root, options: options, events: events, clock: clock, steps: steps)
                let (ending, results) = transport.transfer(
                    requests, options: options, delegate: transfers, wakeFD: stop.wakeFD, shouldStop: stop.isRequested, clock: clock)
                return (ending: ending, results: results, proofs: transfers.proofs)
            }
            ending = transferred.ending
            results += transferred.results
            newProofs.merge(transferred.proofs) { _, downloaded in downloaded }
        }
        if !newProofs.isEmpty {
            for (index, entry) in manifest.entries.enumerated() {
                if let proof = newProofs[entry.path] { proofs[index] = proof }
            }
        }
        // A finished run leaves an index even when it proved nothing: it is what makes DEST managed.
        let create = committed == nil && ending == .finished
        do {
            try saveState(proofs: proofs, carried: carried, previous: previous, index: committed ?? StateIndex(), create: create)
        } catch { throw .state(error) }
        var outcome = PullOutcome(
            results: results, interrupted: ending == .interrupted, stoppedByLocalError: ending == .stoppedByLocalError,
            steps: steps.snapshot)
        if maximumDeletions != nil, ending == .finished, !extras.isEmpty {
            let rest = ExtraRemoval.remove(extras, in: root)
            for path in rest.removed { events.deleted(path: path) }
            deletion.removed += rest.removed
            deletion.failures += rest.failures
        }
        outcome.deletion = deletion
        return outcome
    }

    /// Records what this run proved; entries it could not prove keep their old record, whose CRC
    /// no longer matches a changed entry. Paths the manifest no longer lists are forgotten.
    /// `previous` holds each entry's record in the old `index`, of which `carried` were kept unchanged.
    /// With `create`, the index is written even when it is unchanged (there is none on disk yet).
    private func saveState(
        proofs: EntryColumn<StateIndex.Record>, carried: Int, previous: EntryColumn<StateIndex.Record>, index: StateIndex, create: Bool
    ) throws(SystemError) {
        // Nothing newly proven and every old record still listed: the index on disk stays as it is.
        let proven = proofs.valueCount
        if proven == carried, !create, proven == index.entries.count { return }
        var kept: [StateIndex.Entry] = []
        kept.reserveCapacity(manifest.entries.count)
        proofs.forEachValue(orIn: previous) { position, record in
            kept.append(StateIndex.Entry(path: manifest.entries[position].path, record: record))
        }
        let next = StateIndex(kept)
        if create || next != index { try next.save(to: root) }
    }

    private func emptyResult(
        _ entry: ManifestEntry, action: SyncPlan.Action, _ outcome: Result<StateIndex.Record, CommitError>
    ) -> (FileResult, StateIndex.Record?) {
        switch outcome {
        case .success(let proof):
            return (FileResult(path: entry.path, size: 0, action: action, outcome: .committed), proof)
        case .failure(let error):
            let failure: Failure
            switch error {
            case .mismatch(let reason): failure = Failure(isLocal: false, reason: reason)
            case .local(let error): failure = Failure(isLocal: true, reason: error.description, remedy: error.remedy)
            }
            return (FileResult(path: entry.path, size: 0, action: action, outcome: .failed(failure)), nil)
        }
    }

    private func finish(_ result: FileResult, into results: inout [FileResult]) {
        results.append(result)
        events.finished(result)
    }
}
