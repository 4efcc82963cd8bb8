import AssetSync
import Glibc
import Synchronization

/// A line on standard output.
func say(_ text: String) { put(text + "\n", to: 1) }

/// A line on standard error.
func complain(_ text: String) { put("pull-example: " + text + "\n", to: 2) }

/// `text` written straight to a descriptor: unbuffered, so lines from the observer's threads and the
/// main flow come out in the order they were written.
func put(_ text: String, to descriptor: Int32) {
    let bytes = Array(text.utf8)
    var offset = 0
    while offset < bytes.count {
        let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress! + offset, $0.count - offset) }
        if written < 0 && errno == EINTR { continue }
        if written <= 0 { return }
        offset += written
    }
}

/// "5439488 bytes (5.4 MB)".
func bytes(_ count: Int64) -> String {
    guard count >= 100_000 else { return "\(count) bytes" }
    let tenths = (count + 50_000) / 100_000
    return "\(count) bytes (\(tenths / 10).\(tenths % 10) MB)"
}

/// One event in words, for --events.
func describe(_ event: PullEvent) -> String {
    switch event {
    case .planned(let plan): "planned \(plan.files) files, \(plan.new + plan.changed) to fetch, \(plan.toCheck) to check"
    case .started(let path, let size, let offset, let url): "started \(path) (\(size) bytes\(offset > 0 ? ", resuming at \(offset)" : "")) from \(url)"
    case .retrying(let path, let reason, let delay): "retrying \(path) in \(delay) s: \(reason)"
    case .restarted(let path, let discarded, let reason): "restarted \(path), \(discarded) bytes discarded: \(reason)"
    case .progress(let p): "progress \(p.filesDone)/\(p.filesTotal) files, \(p.bytesDone)/\(p.bytesTotal) bytes"
    case .finished(let file): "finished \(describe(file))"
    case .deleted(let path): "deleted \(path)"
    case .warning(let text): "warning: \(text)"
    case .published(let generation): "published \(generation)"
    case .completed(let report): "completed (\(report.files.count) files, \(report.succeeded ? "succeeded" : "not succeeded"))"
    }
}

/// "committed packs/a.bin (1048576 bytes)", "failed packs/b.bin: why".
func describe(_ file: FileReport) -> String {
    switch file.outcome {
    case .committed: "committed \(file.path) (\(file.bytesTransferred) bytes\(file.reusedFrom.map { " copied from \($0)" } ?? ""))"
    case .current: "current \(file.path)"
    case .failed(let reason): "failed \(file.path): \(reason)"
    case .interrupted: "interrupted \(file.path)"
    }
}

/// The pull's observer: on a terminal one progress line redrawn in place, otherwise a line per
/// finished file. The library calls it from its own threads, one event at a time or not: the mutex
/// keeps the lines whole.
final class ProgressPrinter: Sendable {
    private let terminal: Bool
    /// How many characters the progress line now on screen has (0: none is drawn).
    private let drawn = Mutex(0)

    init(terminal: Bool) { self.terminal = terminal }

    func observe(_ event: PullEvent) {
        drawn.withLock { width in
            switch event {
            case .progress(let p) where terminal:
                let line = "pull: \(p.filesDone)/\(p.filesTotal) files, \(p.bytesDone * 100 / max(p.bytesTotal, 1))% of \(bytes(p.bytesTotal))"
                put("\r" + line + String(repeating: " ", count: max(0, width - line.count)), to: 1)
                width = line.count
            case .finished(let file) where !terminal:
                put("  " + describe(file) + "\n", to: 1)
            case .finished(let file) where terminal:
                // Failures stay on screen, above the progress line (which the next progress event redraws).
                if case .failed = file.outcome { put("\r\u{1B}[K  " + describe(file) + "\n", to: 1); width = 0 }
            case .warning(let text):
                complain("warning: " + text)
            default:
                break
            }
        }
    }

    /// Ends the progress line, if one is drawn.
    func end() {
        drawn.withLock { width in
            if width > 0 { put("\n", to: 1) }
            width = 0
        }
    }
}
