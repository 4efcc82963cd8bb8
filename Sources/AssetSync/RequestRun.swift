import AssetSyncModel
import AssetSyncPull
import AssetSyncSystem
import AssetSyncTransfer

/// One public request carried out by the Pull layer's `PullRun`, on the calling thread (which may
/// block): the request in the layer's terms, and each failure as the one public error.
struct RequestRun {
    let request: PullRequest
    let stop: StopSource

    /// The use case this request is.
    private func run() throws(AssetSyncError) -> PullRun {
        let manifest: SyncRequest.ManifestSource = switch request.manifest {
        case .file(let path): .path(path)
        case .bytes(let bytes, let name): .bytes(bytes, name: name)
        case .url(let url): .url(url)
        }
        var asked = SyncRequest(manifest: manifest, dest: request.destination)
        switch request.layout {
        case .asBefore: break
        case .generations(let keep):
            if let keep, !(1...1000).contains(keep) { throw .invalid("generations to keep must be 1 to 1000, not \(keep)") }
            (asked.layout, asked.keep) = (.atomic, keep)
        case .plainDirectory: asked.layout = .plain
        }
        asked.trustedKeyFiles = request.trustedKeyFiles
        asked.reuseFrom = request.reuseFrom
        asked.options = try options()
        asked.objectStorage = request.network.objectStorage.request
        asked.verifyAll = request.verifyEverything
        if case .remove(let most) = request.extras { asked.deleteUpTo = max(0, most) }
        asked.lockWait = request.lockWaitSeconds
        var effects = PullRun.Effects(stop: stop)
        effects.temporaryDirectory = TemporaryFile.processDirectory
        return PullRun(asked, effects: effects)
    }

    /// The transfer options the request's network settings make, its manifest URL's origin
    /// admitted for its headers.
    private func options() throws(AssetSyncError) -> TransferOptions {
        var options = try request.network.transferOptions()
        if case .url(let url) = request.manifest, !URLRules.isObjectStoreURL(url) { options.credentialScope.admit(originOf: url) }
        return options
    }

    /// Pulls: every file of the manifest into the destination, proven before it is visible; in
    /// generations, into the next one, published only when every file is.
    func pull(events: any PullEvents) throws(AssetSyncError) -> PullReport {
        let run = try run()
        let pulled: PullResult
        do { pulled = try run.pull(events: events) } catch { throw AssetSyncError(error) }
        if let failure = pulled.publishFailure { throw AssetSyncError(.generations(failure)) }
        var report = PullReport(pulled.outcome)
        report.publishedGeneration = pulled.published
        return report
    }

    /// What a pull would do; nothing is made or recorded.
    func plan() throws(AssetSyncError) -> PlanSummary {
        let run = try run()
        do { return PlanSummary(try run.plan(events: NoEvents()).plan) } catch { throw AssetSyncError(error) }
    }

    /// Reads every file of the manifest and proves it, whatever the state index says; records what was proven.
    func verify() throws(AssetSyncError) -> VerifyReport {
        let run = try run()
        do {
            let verified = try run.verify(events: NoEvents())
            return VerifyReport(manifest: verified.manifest, verdicts: verified.verdicts)
        } catch {
            throw AssetSyncError(error)
        }
    }
}
