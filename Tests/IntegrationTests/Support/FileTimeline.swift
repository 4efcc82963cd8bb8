/// What a traced run did to files, in order: each call on a descriptor or a name becomes an operation on
/// one file (an inode, followed across renames), whatever thread made it and whichever descriptor it used.
///
/// Descriptors are followed per process: threads made with `CLONE_FILES` share their creator's table.
/// A descriptor whose opening was not traced (inherited, `dup`ed) is known by the path `-y` printed.
struct FileTimeline: Sendable {
    struct Operation: Sendable {
        enum Kind: Sendable, Equatable {
            /// `openat` that made a new file; `exclusive` with `O_EXCL`, so no existing inode was reused.
            case create(exclusive: Bool)
            /// `openat` of an existing file, and whether for writing.
            case open(writing: Bool)
            case write
            /// `fsync` or `fdatasync` of the file (or directory).
            case sync
            /// `syncfs` through a descriptor on the file system.
            case syncFileSystem
            /// `renameat`/`renameat2` (`linkat`) from `source` to `path`.
            case rename(source: String)
            case link(source: String)
            case unlink
            /// `mkdirat` of the directory at `path`.
            case makeDirectory
        }

        var kind: Kind
        /// The file it acted on, nil for `syncfs`.
        var file: Int?
        /// The file's path at the call (for a rename or a link, the new one).
        var path: String
        var event: SyscallEvent
    }

    private(set) var operations: [Operation] = []

    /// The next file identity to hand out.
    private var nextFile = 0
    /// Which file each path leads to now.
    private var files: [String: Int] = [:]
    /// The path each file has now (nil once unlinked).
    private var paths: [Int: String] = [:]
    /// Per process (keyed by the first thread of the table), descriptor → file.
    private var tables: [Int: [Int32: Int]] = [:]

    init(_ log: StraceLog) {
        for event in log.events where event.succeeded {
            var owner = event.tid
            while let creator = log.sharesDescriptors[owner] { owner = creator }
            follow(event, table: owner)
        }
    }

    private mutating func follow(_ event: SyscallEvent, table: Int) {
        func add(_ kind: Operation.Kind, _ file: Int?, _ path: String) {
            operations.append(Operation(kind: kind, file: file, path: path, event: event))
        }
        switch event.name {
        case "openat":
            guard let (number, printed) = SyscallEvent.descriptor(event.result),
                  let path = printed ?? event.path(directory: 0, name: 1), event.arguments.count > 2 else { return }
            let flags = event.arguments[2]
            let kind: Operation.Kind
            let file: Int
            if flags.contains("O_CREAT"), flags.contains("O_EXCL") || files[path] == nil {
                file = newFile(at: path)
                kind = .create(exclusive: flags.contains("O_EXCL"))
            } else {
                file = files[path] ?? newFile(at: path)
                kind = .open(writing: ["O_WRONLY", "O_RDWR", "O_TRUNC"].contains { flags.contains($0) })
            }
            tables[table, default: [:]][number] = file
            add(kind, file, path)
        case "write", "pwrite64", "fsync", "fdatasync", "syncfs":
            guard let argument = event.arguments.first, let (file, path) = file(of: argument, table: table) else { return }
            switch event.name {
            case "fsync", "fdatasync": add(.sync, file, path)
            case "syncfs": add(.syncFileSystem, nil, path)
            default: add(.write, file, path)
            }
        case "renameat", "renameat2", "linkat":
            guard let source = event.path(directory: 0, name: 1), let target = event.path(directory: 2, name: 3) else { return }
            let file: Int
            if event.name == "linkat" {
                file = files[source] ?? newFile(at: source)
            } else if let moved = files.removeValue(forKey: source) {
                file = moved
            } else {
                file = nextFile  // renamed before the trace saw it
                nextFile += 1
            }
            if let replaced = files[target], replaced != file { paths[replaced] = nil }
            files[target] = file
            paths[file] = target
            add(event.name == "linkat" ? .link(source: source) : .rename(source: source), file, target)
        case "unlinkat":
            guard let path = event.path(directory: 0, name: 1) else { return }
            let file = files.removeValue(forKey: path)
            if let file, paths[file] == path { paths[file] = nil }
            add(.unlink, file, path)
        case "mkdirat":
            guard let path = event.path(directory: 0, name: 1) else { return }
            add(.makeDirectory, newFile(at: path), path)
        case "close":
            guard let argument = event.arguments.first, let (number, _) = SyscallEvent.descriptor(argument) else { return }
            tables[table]?[number] = nil
        default:
            break
        }
    }

    private mutating func newFile(at path: String) -> Int {
        defer { nextFile += 1 }
        if let old = files[path] { paths[old] = nil }
        files[path] = nextFile
        paths[nextFile] = path
        return nextFile
    }

    /// The file a descriptor argument leads to, and its path now: by the process's table, else by the path `-y` printed.
    private mutating func file(of argument: String, table: Int) -> (Int, String)? {
        guard let (number, printed) = SyscallEvent.descriptor(argument) else { return nil }
        if let file = tables[table]?[number] { return (file, paths[file] ?? printed ?? "") }
        guard let printed else { return nil }
        return (files[printed] ?? newFile(at: printed), printed)
    }
}
