import AssetSyncModel

/// The pipeline's events, each handed to the request's observer as a `PullEvent`. Called from the
/// transfer thread and the pull's own: the observer must be thread-safe.
struct EventRelay: PullEvents {
    let observe: @Sendable (PullEvent) -> Void

    func planned(_ plan: SyncPlan) { observe(.planned(PlanSummary(plan))) }

    func started(path: String, size: Int64, resumingAt offset: Int64, url: String) {
        observe(.started(path: path, size: size, resumingAt: offset, url: url))
    }

    func retrying(path: String, reason: String, after delay: Double) { observe(.retrying(path: path, reason: reason, afterSeconds: delay)) }

    func restarted(path: String, discarded: Int64, reason: String) {
        observe(.restarted(path: path, discardedBytes: discarded, reason: reason))
    }

    func finished(_ result: FileResult) { observe(.finished(FileReport(result))) }

    func deleted(path: String) { observe(.deleted(path: path)) }

    func warned(_ text: String) { observe(.warning(text)) }

    func published(generation: String) { observe(.published(generation: generation)) }

    func progress(_ snapshot: ProgressSnapshot) {
        observe(.progress(PullProgress(
            filesDone: snapshot.filesDone, filesTotal: snapshot.filesTotal, bytesDone: snapshot.bytesDone, bytesTotal: snapshot.bytesTotal)))
    }
}
