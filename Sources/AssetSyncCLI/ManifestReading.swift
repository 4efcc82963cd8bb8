import AssetSyncModel
import AssetSyncSystem

/// A local manifest read on a thread of its own while the command opens, locks and walks the cache
/// directory; `result()` waits for it.
final class ManifestReading {
    private var thread: JoinableThread<Result<Manifest, ManifestError>>?
    private var finished: Result<Manifest, ManifestError>?

    /// Starts reading `path` ("-": `input`), or reads it here when no thread can be had.
    init(_ path: String, input: Int32) {
        let read = { CommandSteps.loadManifest(path, input: input) }
        thread = JoinableThread(read)
        if thread == nil { finished = read() }
    }

    deinit { _ = thread?.join() }

    func result() -> Result<Manifest, ManifestError> {
        if let thread {
            finished = thread.join()
            self.thread = nil
        }
        return finished!
    }
}
