package import AssetSyncCache
import AssetSyncManifestIO
package import AssetSyncModel
import AssetSyncPull
import AssetSyncSystem
package import AssetSyncTransfer
import Glibc

/// Steps every command that reads a manifest and a cache directory starts with.
/// Each reports its own failure on the console and throws the exit status.
package enum CommandSteps {
    package static func readManifest(_ path: String, displayName: String? = nil, context: CommandContext) throws(ExitStatus) -> Manifest {
        try reported(loadManifest(path, displayName: displayName, input: context.input), console: context.console)
    }

    /// Reads a manifest without a word on the console, so that it may run on another thread.
    /// "-" is standard input (`input`), which only the command line knows.
    package static func loadManifest(_ path: String, displayName: String? = nil, input: Int32) -> Result<Manifest, ManifestError> {
        Result { () throws(ManifestError) in
            if path == "-" { return try ManifestReader.read(descriptor: input, name: displayName ?? "<stdin>") }
            return try ManifestReader.read(path: path, displayName: displayName)
        }
    }

    /// The bytes of the manifest file at `path`, read once (for a signature, then a parse of the same bytes).
    static func readOnce(_ path: String, displayName: String, console: Console) throws(ExitStatus) -> MemoryFile {
        let read: MemoryFile?
        do {
            read = try MemoryFile.read(path: path, limit: Int(Manifest.sizeLimit))
        } catch {
            console.err("Error: \(QuotedValue.displayPath(displayName)): cannot read the manifest: \(error.reason).\n")
            throw .invalidInput
        }
        guard let read else {
            console.err("Error: \(QuotedValue.displayPath(displayName)): the manifest is larger than the \(ByteCount.human(Manifest.sizeLimit)) limit.\n")
            throw .invalidInput
        }
        return read
    }

    /// The manifest read, or why not told on the console and thrown as the exit status.
    package static func reported(_ loaded: Result<Manifest, ManifestError>, console: Console) throws(ExitStatus) -> Manifest {
        switch loaded {
        case .success(let manifest):
            return manifest
        case .failure(let error):
            console.err("Error: \(error.worded)\n")
            throw ExitStatus(error.kind)
        }
    }

    /// The network options and tuning variables of a command that makes requests.
    package static func networkOptions(_ arguments: ParsedArguments, command: String, context: CommandContext) throws(ExitStatus) -> TransferOptions {
        do {
            return try NetworkOptions.parse(arguments, environment: context.environment, command: command)
        } catch {
            throw CommandLineTool.usageFailure(error, console: context.console)
        }
    }

    /// Whether the manifest argument is a URL to fetch rather than a path.
    package static func isURL(_ argument: String) -> Bool {
        let lower = argument.lowercased()
        return lower.hasPrefix("http://") || lower.hasPrefix("https://")
    }

    /// Fetches a manifest URL (into the cache's `.assetsync/` when there is one, conditionally) and reads it.
    package static func fetchManifest(
        _ url: String, cache root: CacheRoot?, options: TransferOptions, context: CommandContext
    ) throws(ExitStatus) -> Manifest {
        try fetch(url, cache: root, options: options, context: context) { path throws(ExitStatus) in
            try readManifest(path, displayName: url, context: context)
        }
    }

    /// Fetches `url` into the cache's copy named `file` under `.assetsync/` (conditionally), or into a
    /// temporary file when there is no cache, and gives `body` the path it is at (a temporary file is
    /// removed after). A failure is told as one to fetch `what`, unless `reporting` tells it (and returns
    /// the exit status) itself. An answer longer than `sizeLimit` fails.
    package static func fetch<Fetched>(
        _ url: String, file: String = ManifestCopy.fileName, what: String = "the manifest", sizeLimit: Int64 = Manifest.sizeLimit,
        cache root: CacheRoot?,
        options: TransferOptions, context: CommandContext, reporting: (ManifestFetcher.Failure) -> ExitStatus? = { _ in nil },
        _ body: (String) throws(ExitStatus) -> Fetched
    ) throws(ExitStatus) -> Fetched {
        // With no cache to fetch into (`plan` of a DEST not made yet), a fresh file in TMPDIR.
        let directory = context.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var template = Array((directory + "/assetsync-manifest-XXXXXX").utf8CString)
        let temporary: String? = root == nil ? template.withUnsafeMutableBufferPointer { buffer in
            let fd = mkstemp(buffer.baseAddress!)
            guard fd >= 0 else { return nil }
            close(fd)
            return String(cString: buffer.baseAddress!)
        } : nil
        defer { if let temporary { unlink(temporary) } }
        let fetched: ManifestFetcher.Fetched
        do {
            let destination: any ManifestDestination = root.map { CachedManifestDestination(root: $0, file: file) }
                ?? ManifestFile(path: temporary ?? "manifest.download")
            fetched = try ManifestFetcher(options: options, sizeLimit: sizeLimit, stop: context.stop)
                .fetch(url, into: destination)
        } catch {
            if context.stop.isRequested() { throw .interrupted }
            if let status = reporting(error) { throw status }
            context.console.err("Error: cannot fetch \(what) \(url): \(error.messageWithRemedy). Nothing was downloaded.\n")
            throw ExitStatus(error.kind)
        }
        return try body(fetched.path)
    }

    package static func resolveDest(
        _ arguments: ParsedArguments, console: Console, checkingFirst: () throws(ExitStatus) -> Void = {}
    ) throws(ExitStatus) -> String {
        let dest = arguments.value("--dest") ?? "."
        switch CacheDirectory.resolve(dest) {
        case .success(let resolved):
            return resolved
        case .failure(let problem):
            try checkingFirst()
            console.err("Error: --dest \(QuotedValue.quote(dest)): \(problem.message)\n")
            throw ExitStatus(problem.kind)
        }
    }

    /// The other caches named by `--reuse-from`, each opened once; one that is not a directory is a usage error.
    package static func reuseFromSources(_ arguments: ParsedArguments, command: String, console: Console) throws(ExitStatus) -> [ReuseSource] {
        var sources: [ReuseSource] = []
        for path in arguments.values["--reuse-from"] ?? [] {
            guard let source = ReuseSource(otherCacheAt: path) else {
                throw CommandLineTool.usageFailure(
                    UsageError(message: "'--reuse-from \(path)': not a directory that can be opened", command: command), console: console)
            }
            sources.append(source)
        }
        return sources
    }

    /// Opens (creating when needed) the cache directory and its `.assetsync/`.
    /// `checkingFirst` runs before any failure is told: it throws the error that should be told instead.
    package static func openCache(
        _ arguments: ParsedArguments, console: Console, checkingFirst: () throws(ExitStatus) -> Void = {}
    ) throws(ExitStatus) -> CacheRoot {
        let path = try resolveDest(arguments, console: console, checkingFirst: checkingFirst)
        do {
            return try CacheRoot(resolvedPath: path)
        } catch {
            try checkingFirst()
            // A system error is most often permissions; the other errors say themselves what to do.
            let hint = if case .system = error { " Check that it is writable." } else { "" }
            console.err("Error: cannot open the cache directory: \(error.messageWithRemedy).\(hint)\n")
            throw ExitStatus(error.kind)
        }
    }

    /// Takes the cache directory's lock for the whole run, waiting up to `--lock-wait` seconds.
    /// `checkingFirst` runs before a failure is told, as for `openCache`.
    package static func lock(
        _ root: CacheRoot, _ arguments: ParsedArguments, command: String, context: CommandContext,
        checkingFirst: () throws(ExitStatus) -> Void = {}
    ) throws(ExitStatus) -> CacheLock {
        let console = context.console
        let wait: Double
        switch Waits.parse(arguments, environment: context.environment, command: command) {
        case .success(let waits): wait = waits.lockWait
        case .failure(let error): throw CommandLineTool.usageFailure(error, console: console)
        }
        do {
            return try CacheLock(root: root, wait: wait, stop: context.stop, clock: context.clock)
        } catch {
            do throws(ExitStatus) {
                try checkingFirst()
            } catch {
                root.forgetWhatThisRunCreated()
                throw error
            }
            switch error {
            case .held:
                if context.stop.isRequested() { throw .interrupted }
                let advice = wait > 0 ? "pass a longer --lock-wait" : "pass --lock-wait SECONDS"
                console.err("Error: \(error.message). It is freed when that run ends; wait for it, or \(advice).\n")
            case .system:
                console.err("Error: cannot lock the cache directory: \(error.message).\n")
            }
            throw ExitStatus(error.kind)
        }
    }
}
