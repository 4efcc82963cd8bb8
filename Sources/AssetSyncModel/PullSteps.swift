/// Where a pull's downloads spent their time: thread-seconds by step, kept by the pull as it runs
/// (a few clock reads per buffer, file and group), so that a change to the pipeline is chosen from,
/// and shown to move, a profile of a run at full speed. Steps on one thread do not overlap; steps on
/// different threads do, so their sum may exceed the wall time.
package struct PullSteps: Sendable, Equatable {
    /// One step, and the thread it runs on.
    package enum Step: String, CaseIterable, Sendable {
        /// The transfer thread in libcurl's work: receiving, TLS, and copying and checksumming the
        /// bytes of small files (those held in one buffer until proven); and the second thread's, which
        /// receives segments of large files.
        case receiving
        /// The transfer thread waiting for the network (libcurl's poll).
        case networkWaits = "network_waits"
        /// The transfer thread waiting for a free write buffer: the writer lanes are behind.
        case bufferWaits = "buffer_waits"
        /// The transfer thread waiting for a file's queued writes to end, to prove or record it.
        case writeWaits = "write_waits"
        /// The transfer thread proving finished downloads: a SHA-256 read back, a delta's chunks.
        case verifying
        /// The transfer thread waiting for the commit thread, which is behind.
        case commitWaits = "commit_waits"
        /// The writer lanes writing (and checksumming) large files' buffers and small files.
        case writes
        /// The commit thread making a group's data durable (`fdatasync`, `syncfs`).
        case syncs
        /// The commit thread checking, chmodding and renaming a group's files into place.
        case renames
        /// The commit thread making the renames durable (each parent directory's `fsync`).
        case directorySyncs = "directory_syncs"
    }

    package private(set) var seconds: [Step: Double] = [:]

    package init(seconds: [Step: Double] = [:]) { self.seconds = seconds }

    package subscript(step: Step) -> Double { seconds[step] ?? 0 }
}
