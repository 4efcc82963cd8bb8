/// Receives a pull's progress. Called from the transfer thread, so it must be thread-safe.
package protocol PullEvents: Sendable {
    /// What the pull found to do, before any transfer.
    func planned(_ plan: SyncPlan)
    func started(path: String, size: Int64, resumingAt offset: Int64, url: String)
    func retrying(path: String, reason: String, after delay: Double)
    /// A resume became a download from zero without a retry: `discarded` bytes kept from before were dropped.
    func restarted(path: String, discarded: Int64, reason: String)
    func finished(_ result: FileResult)
    /// `--delete` removed a file the manifest does not list.
    func deleted(path: String)
    /// The transfers under way, at most ten times a second.
    func progress(_ snapshot: ProgressSnapshot)
    /// Something went wrong that did not stop the run (an old generation that could not be removed).
    func warned(_ text: String)
    /// The run published a new generation: the destination shows it now.
    func published(generation: String)
    /// The manifest was refused under the trusted keys; the run then ends with that failure.
    func refused(_ refusal: TrustRefusal, manifest: String)
    /// A verification proved, or failed to prove, one file; told in the manifest's order once every file is read.
    func verified(_ entry: ManifestEntry, _ verdict: ContentVerdict)
}

/// The events a pull, a plan or a verification may not have: a sink that has no use for one leaves it out.
extension PullEvents {
    package func warned(_ text: String) {}
    package func published(generation: String) {}
    package func refused(_ refusal: TrustRefusal, manifest: String) {}
    package func verified(_ entry: ManifestEntry, _ verdict: ContentVerdict) {}
}

/// The events of a request whose caller follows none (a plan or a rollback of the library's).
package struct NoEvents: PullEvents {
    package init() {}
    package func planned(_ plan: SyncPlan) {}
    package func started(path: String, size: Int64, resumingAt offset: Int64, url: String) {}
    package func retrying(path: String, reason: String, after delay: Double) {}
    package func restarted(path: String, discarded: Int64, reason: String) {}
    package func finished(_ result: FileResult) {}
    package func deleted(path: String) {}
    package func progress(_ snapshot: ProgressSnapshot) {}
}
