/// The ordering rules that make a commit under DEST durable (DESIGN.md §4, invariant 2), checked over a
/// traced run in the spirit of ALICE: a crash at any moment leaves each final path with its old bytes or
/// its proven new ones, and the state index never vouches for a file that a crash could still lose.
///
/// "Before" is by strace's lines: a call that started after another returned, happened after it.
struct CommitRules {
    enum Rule: String, Sendable {
        /// R1: after a file's last write, an fsync/fdatasync of it (or a syncfs on DEST's file system)
        /// returns before it is renamed to a final path.
        case dataSyncedBeforeRename = "R1"
        /// R2: the parent directory of each final path renamed into is fsynced after that rename and
        /// before the next state index is renamed into place (which records the file). A directory the run
        /// made on the way to the file counts too: its own parent is fsynced after the `mkdirat`, else a
        /// crash can lose the directory, and the file in it, that the state index vouches for.
        case directorySyncedBeforeIndex = "R2"
        /// R3: a file of `.assetsync/` (the state index, the remote manifest's copy and its meta) is
        /// written under a fresh temporary name in `partial/`, synced, renamed into place, then `.assetsync/`
        /// is fsynced; it is never opened for writing under its own name, and no temporary is made beside it.
        /// (Only the lock file is opened there: it holds no data.)
        case metadataReplacedDurably = "R3"
        /// R4: only a file from `.assetsync/partial/` (a proven partial) is renamed onto a final path; nothing
        /// is linked there, opened there for writing, or written through a final path.
        case onlyPartialsBecomeFinal = "R4"
        /// A resume record is written under a fresh temporary name in `partial/`, then renamed into place.
        /// It is not synced, on purpose (`PartialFile.saveResume`): a record lost in a crash only costs a
        /// fresh start, and the bytes it points at are re-read and proven by CRC before any commit, so
        /// the durability rules R1 and R3 do not apply to it; only "never torn" does.
        case resumeRecordReplaced = "resume"
    }

    /// A rule broken, at the call that broke it (or that should have been preceded or followed by another).
    struct Violation: Sendable, CustomStringConvertible {
        var rule: Rule
        var line: Int
        var text: String
        var detail: String

        var description: String { "\(rule.rawValue) at line \(line): \(detail)\n    \(text)" }
    }

    /// DEST as the trace prints it: with symlinks resolved, as `-y` paths are.
    let dest: String

    private var metadata: String { dest + "/.assetsync" }
    private var partial: String { metadata + "/partial" }
    private var stateIndex: String { metadata + "/state" }

    /// A path under DEST that a manifest entry can name, outside `.assetsync/`.
    func isFinal(_ path: String) -> Bool {
        path.hasPrefix(dest + "/") && path != metadata && !path.hasPrefix(metadata + "/")
    }

    /// Every violation in `timeline`, in the order of the calls that broke the rules.
    func check(_ timeline: FileTimeline) -> [Violation] {
        let operations = timeline.operations
        var violations: [Violation] = []
        func violate(_ rule: Rule, _ operation: FileTimeline.Operation, _ detail: String) {
            violations.append(Violation(rule: rule, line: operation.event.line, text: operation.event.text, detail: detail))
        }
        for operation in operations {
            let path = operation.path
            let parent = Self.parent(of: path)
            switch operation.kind {
            case .rename(let source) where isFinal(path):
                if !source.hasPrefix(partial + "/") {
                    violate(.onlyPartialsBecomeFinal, operation, "\(path) was renamed from \(source), not from .assetsync/partial/")
                }
                if let missing = missingDataSync(before: operation, in: operations) {
                    violate(.dataSyncedBeforeRename, operation, "\(source) was renamed to \(path) \(missing)")
                }
                let index = operations.first { $0.event.line > operation.event.endLine && $0.isRename(to: stateIndex) }
                /// Whether `directory` was fsynced after `line` and before the state index was renamed into place.
                func synced(_ directory: String, after line: Int) -> Bool {
                    operations.contains { sync in
                        sync.kind == .sync && sync.path == directory && sync.event.line > line
                            && index.map { sync.event.endLine < $0.event.line } ?? true
                    }
                }
                let until = index.map { "before the state index was renamed into place at line \($0.event.line)" } ?? "at all"
                if !synced(parent, after: operation.event.endLine) {
                    violate(.directorySyncedBeforeIndex, operation, "\(parent) was not fsynced after \(path) was renamed into it \(until)")
                }
                var directory = parent
                while isFinal(directory) {
                    if let made = operations.last(where: {
                        $0.kind == .makeDirectory && $0.path == directory && $0.event.line < operation.event.line
                    }), !synced(Self.parent(of: directory), after: made.event.endLine) {
                        violate(.directorySyncedBeforeIndex, operation, "\(directory) was made (line \(made.event.line)) on the way to "
                                + "\(path), but its parent was not fsynced after it \(until)")
                    }
                    directory = Self.parent(of: directory)
                }
            case .rename(let source) where parent == metadata:
                checkReplacement(of: operation, from: source, in: operations, rule: .metadataReplacedDurably, violate: violate)
                if let missing = missingDataSync(before: operation, in: operations) {
                    violate(.metadataReplacedDurably, operation, "\(source) was renamed to \(path) \(missing)")
                }
                if !operations.contains(where: { $0.kind == .sync && $0.path == metadata && $0.event.line > operation.event.endLine }) {
                    violate(.metadataReplacedDurably, operation, "\(metadata) was not fsynced after \(path) was renamed into it")
                }
            case .rename(let source) where parent == partial && path.hasSuffix(".resume"):
                checkReplacement(of: operation, from: source, in: operations, rule: .resumeRecordReplaced, violate: violate)
                let writes = operations.filter { $0.file == operation.file && $0.kind == .write && $0.event.line < operation.event.line }
                if let write = writes.last, write.event.endLine > operation.event.line {
                    violate(.resumeRecordReplaced, operation, "\(path) was renamed into place while line \(write.event.line) wrote it")
                }
            case .link(let source) where isFinal(path):
                violate(.onlyPartialsBecomeFinal, operation, "\(source) was hard-linked to the final path \(path)")
            case .create, .open(writing: true):
                if isFinal(path) {
                    violate(.onlyPartialsBecomeFinal, operation, "the final path \(path) was opened for writing")
                } else if parent == metadata && Self.name(of: path) != "lock" {
                    violate(.metadataReplacedDurably, operation, "\(path) was opened for writing in .assetsync/, not staged in partial/")
                } else if parent == partial && path.hasSuffix(".resume") {
                    violate(.resumeRecordReplaced, operation, "\(path) was opened for writing under its own name")
                }
            case .write where isFinal(path):
                violate(.onlyPartialsBecomeFinal, operation, "a write went through the final path \(path)")
            default:
                break
            }
        }
        return violations
    }

    /// Why the file `rename` moves is not durable when it is renamed (nil when it is): no sync of it, or
    /// of DEST's file system, returned between its last change (creation or write) and the rename.
    private func missingDataSync(before rename: FileTimeline.Operation, in operations: [FileTimeline.Operation]) -> String? {
        let ownOperations = operations.filter { $0.file == rename.file && $0.event.line < rename.event.line }
        let changes = ownOperations.filter {
            if case .create = $0.kind { return true }
            return $0.kind == .write
        }
        let lastChange = changes.map(\.event.endLine).max() ?? 0
        let synced = operations.contains { sync in
            let onDest = sync.path == dest || sync.path.hasPrefix(dest + "/")
            let covers = (sync.kind == .sync && sync.file == rename.file) || (sync.kind == .syncFileSystem && onDest)
            return covers && sync.event.line > lastChange && sync.event.endLine < rename.event.line
        }
        if synced { return nil }
        return lastChange > 0 ? "with no fsync, fdatasync or syncfs after its last change at line \(lastChange)" : "without a sync"
    }

    /// Checks that `rename` puts a fresh temporary file (created with `O_EXCL`, named `….tmp-…`, in `partial/`) in place.
    private func checkReplacement(
        of rename: FileTimeline.Operation, from source: String, in operations: [FileTimeline.Operation], rule: Rule,
        violate: (Rule, FileTimeline.Operation, String) -> Void
    ) {
        let fresh = operations.contains {
            $0.file == rename.file && $0.kind == .create(exclusive: true) && $0.event.line < rename.event.line
        }
        if Self.parent(of: source) != partial || !Self.name(of: source).contains(".tmp-") || !fresh {
            violate(rule, rename, "\(rename.path) was replaced by \(source), not by a fresh temporary file (O_EXCL, .tmp-) in partial/")
        }
    }

    static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "" }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    static func name(of path: String) -> String {
        path.lastIndex(of: "/").map { String(path[path.index(after: $0)...]) } ?? path
    }
}

extension FileTimeline.Operation {
    func isRename(to target: String) -> Bool {
        if case .rename = kind { return path == target }
        return false
    }
}
