package import AssetSyncModel
import AssetSyncSystem

extension PullRun {
    /// Reads every file of the manifest in the destination and proves it, whatever the state index
    /// says, under the destination's lock; records what was proven. `events` hears each file's
    /// verdict, in the manifest's order, and a refusal of the manifest.
    package func verify(events: any PullEvents) throws(PullRunFailure) -> VerifyResult {
        let verified = try telling(events) { () throws(PullRunFailure) in try verifying(events: events) }
        for (entry, verdict) in zip(verified.manifest.entries, verified.verdicts) { events.verified(entry, verdict) }
        return verified
    }

    private func verifying(events: any PullEvents) throws(PullRunFailure) -> VerifyResult {
        let admission = try admission()
        let local = try startReading(admission: admission)
        if let own = local?.failure { throw own }
        let root = try openDest()
        let lock = try self.lock(root)
        defer { withExtendedLifetime(lock) {} }
        let loaded = try manifest(local: local, admission: admission, into: root)
        try checkVersion(of: loaded, admission: admission, .accept(root))
        loaded.manifest.notes.forEach(events.warned)
        let read: [ContentCheck.Verdict]?
        do { read = try Verification.run(manifest: loaded.manifest, root: root, until: effects.stop.isRequested) } catch { throw .record(error) }
        guard let verdicts = read else { throw .interrupted }
        return VerifyResult(manifest: loaded.manifest, verdicts: verdicts.map(ContentVerdict.init))
    }
}

extension ContentVerdict {
    /// A content check's verdict, its proof left behind (the state index keeps it).
    init(_ verdict: ContentCheck.Verdict) {
        switch verdict {
        case .proven: self = .proven
        case .missing: self = .missing
        case .notARegularFile: self = .notARegularFile
        case .wrongSize(let size): self = .wrongSize(size)
        case .wrongCRC(let crc): self = .wrongCRC(crc)
        case .wrongSHA256(let digest): self = .wrongSHA256(digest)
        case .unreadable(let error): self = .unreadable(error)
        }
    }
}
