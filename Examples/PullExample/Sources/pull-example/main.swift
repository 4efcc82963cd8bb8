// pull-example: the AssetSync library from a program of its own. It plans, pulls (with a progress
// line, or printing every event with --events), reports, and verifies; Ctrl-C cancels the task that
// does all that, which stops the pull and keeps its partial downloads for the next run.
import AssetSync
import Dispatch
import Glibc

let usage = """
    usage: pull-example [--events] [--jobs N] MANIFEST DEST
      MANIFEST  a manifest file (XML or JSON), or the http(s) URL of one
      DEST      the cache directory to make identical to it
      --events  print every event of the pull, read from AssetSync.events(of:)
      --jobs N  transfers at once (1-64, default 8)
    exit status: 0 pulled and verified, 1 files failed (or did not verify), 2 invalid input,
      3 local I/O failure, 4 lock held, 5 untrusted manifest, 130 cancelled (Ctrl-C)
    """

/// The command line: the request, and whether to print events rather than progress.
func parse(_ arguments: [String]) -> (request: PullRequest, printEvents: Bool)? {
    var printEvents = false
    var jobs: Int?
    var positional: [String] = []
    var rest = arguments[...]
    while let argument = rest.popFirst() {
        switch argument {
        case "--events": printEvents = true
        case "--jobs": guard let value = rest.popFirst().flatMap({ Int($0) }) else { return nil }; jobs = value
        case "-h", "--help": return nil
        default:
            if argument.hasPrefix("-") { return nil }
            positional.append(argument)
        }
    }
    guard positional.count == 2 else { return nil }
    let manifest = positional[0]
    let isURL = manifest.hasPrefix("http://") || manifest.hasPrefix("https://")
    var request = PullRequest(manifest: isURL ? .url(manifest) : .file(manifest), destination: positional[1])
    if let jobs { request.network.jobs = jobs }  // the library checks the ranges: 0 is an invalidInput error
    return (request, printEvents)
}

/// Plan, pull, report, verify: the exit status.
func run(_ request: PullRequest, printEvents: Bool) async -> Int32 {
    do throws(AssetSyncError) {
        let plan = try await AssetSync.plan(request)
        say("plan: \(plan.files) files: \(plan.new) new, \(plan.changed) changed, \(plan.toCheck) to check, "
            + "\(plan.current) current, \(plan.extras) extras; \(bytes(plan.bytesToDownload)) to download")

        let report = printEvents ? try await pullPrintingEvents(request) : try await pullWithProgress(request)
        printReport(report)

        let verification = try await AssetSync.verify(request)
        printVerification(verification)
        return report.succeeded && verification.succeeded ? 0 : 1
    } catch {
        complain("\(error)" + (error.cause.map { " (\($0))" } ?? "") + " [\(error.kind)]")
        return exitStatus(error.kind)
    }
}

/// The pull, its events heard by an observer that draws progress.
func pullWithProgress(_ request: PullRequest) async throws(AssetSyncError) -> PullReport {
    let progress = ProgressPrinter(terminal: isatty(1) == 1)
    defer { progress.end() }
    return try await AssetSync.pull(request, observe: progress.observe)
}

/// The pull as an AsyncSequence of events, each printed; the last one carries the report.
func pullPrintingEvents(_ request: PullRequest) async throws(AssetSyncError) -> PullReport {
    do {
        for try await event in AssetSync.events(of: request) {
            say("event: \(describe(event))")
            if case .completed(let report) = event { return report }
        }
    } catch let error as AssetSyncError {
        throw error
    } catch {
        throw AssetSyncError(kind: .localIO, message: "the pull's events ended with \(error)")
    }
    // The sequence ends without a report only when the task iterating it is cancelled (Ctrl-C). That
    // cancels the pull too, but the sequence ends at once, without waiting for the pull to stop.
    throw AssetSyncError(kind: .cancelled, message: "cancelled", remedy: "partial downloads are kept in the destination, and the next pull resumes them")
}

func printReport(_ report: PullReport) {
    let committed = report.files.count { $0.outcome == .committed }
    let current = report.files.count { $0.outcome == .current }
    let transferred = report.files.reduce(0) { $0 + $1.bytesTransferred }
    say("pull: \(committed) committed, \(current) current, \(report.failures.count) failed; \(bytes(transferred)) transferred")
    for file in report.failures {
        if case .failed(let reason) = file.outcome { say("  failed \(file.path): \(reason)") }
    }
    for (path, reason) in report.notDeleted.sorted(by: { $0.key < $1.key }) { say("  not deleted \(path): \(reason)") }
}

func printVerification(_ report: VerifyReport) {
    say("verify: \(report.good) of \(report.files.count) good")
    for (path, verdict) in report.files {
        switch verdict {
        case .good: say("  good \(path)")
        case .missing: say("  missing \(path)")
        case .corrupt(let why): say("  corrupt \(path): \(why)")
        case .unreadable(let why): say("  unreadable \(path): \(why)")
        }
    }
}

/// The exit status for a kind of failure. Kinds may be added, so the match ends with a default.
func exitStatus(_ kind: AssetSyncError.Kind) -> Int32 {
    switch kind {
    case .invalidInput: 2
    case .localIO: 3
    case .lockHeld: 4
    case .untrusted: 5
    case .cancelled: 130
    default: 1  // .remote: the manifest or the files could not be had
    }
}

/// Makes SIGINT and SIGTERM cancel `task` (the library then stops the request under way).
/// The sources must be kept alive for as long as the signals are to be heard.
func cancel(_ task: Task<Int32, Never>, onSignals signals: [Int32]) -> [any DispatchSourceSignal] {
    signals.map { number in
        signal(number, SIG_IGN)  // no default action: the source alone hears it
        let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
        source.setEventHandler { task.cancel() }
        source.resume()
        return source
    }
}

guard let (request, printEvents) = parse(Array(CommandLine.arguments.dropFirst())) else {
    complain(usage)
    exit(2)
}
let work = Task { await run(request, printEvents: printEvents) }
let signalSources = cancel(work, onSignals: [SIGINT, SIGTERM])
let status = await work.value
withExtendedLifetime(signalSources) {}
exit(status)
