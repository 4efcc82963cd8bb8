import AssetSyncSystem
import Glibc

/// A document's bytes on their way into a `ManifestDestination`: each attempt's body in a fresh
/// file of the destination's, opened at its first byte, and the answer's validators, which the
/// destination keeps with the copy for the next conditional request.
final class ManifestSink: DownloadSink {
    private let destination: any ManifestDestination
    /// The current attempt's file; -1 until its first byte.
    private var output: Int32 = -1
    private(set) var offset: Int64 = 0
    /// The validators of the answer being written.
    private var validators: ResumeRecord?
    /// What went wrong on this side, in the destination's words: the fetch's failure, whatever the
    /// transfer reports of it.
    private(set) var failure: ManifestFetcher.Failure?

    init(into destination: any ManifestDestination) { self.destination = destination }

    deinit { drop() }

    /// A document's bytes never resume: no record comes with them.
    var resumeFields: [String: String]? { nil }

    func append(_ bytes: UnsafeRawBufferPointer) throws(SystemError) {
        if output < 0 {
            do { output = try destination.openAttempt() } catch {
                failure = error
                throw SystemError("open", path: destination.attemptName)
            }
        }
        do { try FileDescriptor(output).writeAll(bytes) } catch {
            failure = ManifestFetcher.Failure(description: "cannot write \(destination.attemptName): \(error.reason)")
            throw error
        }
        offset += Int64(bytes.count)
    }

    func restart() throws(SystemError) { drop() }

    func discard() { drop() }

    /// Keeps the answer's validators, for the copy's next conditional request.
    func saveResume(_ fields: [(key: String, value: String?)]) throws(SystemError) {
        let present = fields.compactMap { field in field.value.map { (field.key, $0) } }
        validators = ResumeRecord(fields: Dictionary(uniqueKeysWithValues: present))
    }

    /// A document has no size or checksum to compare with: its status was its proof.
    func mismatch() -> String? { nil }

    /// Makes the body durable (when the destination keeps it so) and has the destination keep it, with the answer's validators, as the
    /// document from `url`; the path it can be read at.
    func keep(url: String) throws(ManifestFetcher.Failure) -> String {
        if output < 0 { output = try destination.openAttempt() }  // an empty body: its file all the same
        defer {
            destination.dropAttempt()
            offset = 0
        }
        let durable = !destination.keepsDurably || fdatasync(output) == 0
        let error = SystemError("fsync")
        close(output)
        output = -1
        guard durable else { throw ManifestFetcher.Failure(description: "cannot write \(destination.attemptName): \(error.reason)") }
        return try destination.keepAttempt(url: url, etag: validators?.etag, lastModified: validators?.lastModified)
    }

    /// Closes and removes the current attempt's file, if it has one: the next byte starts a new one.
    private func drop() {
        offset = 0
        validators = nil
        guard output >= 0 else { return }
        close(output)
        output = -1
        destination.dropAttempt()
    }
}
