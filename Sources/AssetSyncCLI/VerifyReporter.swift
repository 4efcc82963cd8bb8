import AssetSync
import Synchronization

/// `verify`'s output, a renderer of the verification's events: a line on stderr for each file that
/// is not good, with `--json` a `done` or `failed` event for each file on stdout (and a refused
/// manifest's `untrusted` event), and the tally the summary is made of.
final class VerifyReporter: PullEvents {
    /// What the files were found to be.
    struct Tally {
        var files = 0
        var missing = 0
        var corrupt = 0
        var unreadable = 0
        /// Bytes read: of the files good or found corrupt by their checksums.
        var bytes: Int64 = 0
        var good: Int { files - missing - corrupt - unreadable }
    }

    private let console: Console
    /// With `--json`, the pull's JSON events, for a refusal; and this writes each file's.
    private let refusals: PullReporters?
    private let counted = Mutex(Tally())

    init(console: Console, refusals: PullReporters?) {
        self.console = console
        self.refusals = refusals
    }

    var tally: Tally { counted.withLock { $0 } }

    func refused(_ refusal: TrustRefusal, manifest: String) { refusals?.refused(refusal, manifest: manifest) }

    func warned(_ text: String) { console.err("Warning: \(text).\n") }

    func verified(_ entry: ManifestEntry, _ verdict: ContentVerdict) {
        // What is wrong ("missing", "corrupt" or "error"; nil when good), why, and whether the bytes were read to tell.
        let (word, reason, read): (String?, String?, Bool) = switch verdict {
        case .proven: (nil, nil, true)
        case .missing: ("missing", nil, false)
        case .notARegularFile: ("corrupt", "not a regular file", false)
        case .wrongSize(let size): ("corrupt", "size is \(size) bytes, expected \(entry.size)", false)
        case .wrongCRC(let crc): ("corrupt", "CRC-32 is \(CRC32Text.hex(crc)), expected \(entry.crc32.map(CRC32Text.hex) ?? "none")", true)
        case .wrongSHA256(let digest): ("corrupt", "SHA-256 is \(digest.hex), expected \(entry.sha256?.hex ?? "none")", true)
        case .unreadable(let error): ("error", error.message, false)
        }
        counted.withLock { tally in
            tally.files += 1
            if read { tally.bytes = tally.bytes.addingSaturated(entry.size) }
            switch word {
            case "missing": tally.missing += 1
            case "corrupt": tally.corrupt += 1
            case "error": tally.unreadable += 1
            default: break
            }
        }
        if let word {
            let padded = word + String(repeating: " ", count: max(1, 9 - word.count))
            console.err(padded + QuotedValue.displayPath(entry.path) + (reason.map { ": " + $0 } ?? "") + "\n")
        }
        guard refusals != nil else { return }
        var line = JSONLine(type: word == nil ? "done" : "failed")
        line.add("path", entry.path)
        line.add("size", entry.size)
        if let word {
            line.add("reason", reason.map { word + ": " + $0 } ?? word)
        } else {
            line.add("action", "verified")
        }
        console.out(line.line)
    }

    func planned(_ plan: SyncPlan) {}
    func started(path: String, size: Int64, resumingAt offset: Int64, url: String) {}
    func retrying(path: String, reason: String, after delay: Double) {}
    func restarted(path: String, discarded: Int64, reason: String) {}
    func finished(_ result: FileResult) {}
    func deleted(path: String) {}
    func progress(_ snapshot: ProgressSnapshot) {}
}
