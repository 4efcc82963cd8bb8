package import AssetSync

/// A request's failure told on the console in the command line's words, naming its options, and
/// the exit status it ends the command with.
package struct RunFailureReport {
    let command: String
    let console: Console

    package func status(of failure: PullRunFailure) -> ExitStatus {
        switch failure {
        case .keyFile(let file, let problem):
            return usage("'--trusted-key' file \(QuotedValue.quote(file)) " + Self.words(problem))
        case .unsignable:
            return usage("'--trusted-key' needs a manifest file or URL: standard input has no signature beside it")
        case .manifest(let error):
            return console.failed("\(error.worded)\n", error.kind)
        case .manifestUnreadable(let name, let reason):
            return console.failed(Self.unreadable(manifest: name, reason: reason), .invalidInput)
        case .manifestTooLarge(let name):
            return console.failed(Self.tooLarge(manifest: name), .invalidInput)
        case .signatureUnreadable(let path, let reason, let kind):
            return console.failed("cannot read the signature \(QuotedValue.displayPath(path)): \(reason).\n", kind)
        case .untrusted(let refusal, let name):
            return refuse(refusal, manifest: name)
        case .versionUnreadable(let error):
            return console.failed("cannot read the accepted manifest version: \(error.message).\n", error.kind)
        case .versionUnrecorded(let error):
            return console.failed("cannot record the accepted manifest version: \(error.message).\n", error.kind)
        case .fetch(let url, let file, let error):
            let what = file == .manifest ? "the manifest" : "the manifest's signature"
            return console.failed("cannot fetch \(what) \(url): \(error.messageWithRemedy). Nothing was downloaded.\n", error.kind)
        case .destination(let dest, let problem):
            return console.failed("--dest \(QuotedValue.quote(dest)): \(problem.message)\n", problem.kind)
        case .destinationUnopenable(let error, let isSystem):
            // A system error is most often permissions; the other errors say themselves what to do.
            return console.failed("cannot open the cache directory: \(error.messageWithRemedy).\(isSystem ? " Check that it is writable." : "")\n", error.kind)
        case .storeUnplaceable(let dest, let problem):
            return console.failed("--dest \(QuotedValue.quote(dest)): \(problem.message).\n", problem.kind)
        case .storeUnopenable(let dest, let error):
            return console.failed("cannot open the generations of --dest \(QuotedValue.quote(dest)): \(error.messageWithRemedy).\n", error.kind)
        case .generations(let error):
            return console.failed("\(error.messageWithRemedy).\n", error.kind)
        case .keepWithoutGenerations:
            return usage("'--keep' goes with '--atomic'")
        case .lockHeld(let error, let wait):
            let advice = wait > 0 ? "pass a longer --lock-wait" : "pass --lock-wait SECONDS"
            return console.failed("\(error.message). It is freed when that run ends; wait for it, or \(advice).\n", error.kind)
        case .lockFailed(let error):
            return console.failed("cannot lock the cache directory: \(error.message).\n", error.kind)
        case .reuseSource(let path):
            return usage("'--reuse-from \(path)': not a directory that can be opened")
        case .cannotStart(let error):
            return console.failed("\(error.message).\n", error.kind)
        case .objectStore(let error):
            return console.failed(
                "the manifest names an S3 store, but its settings cannot be used: \(error.message). "
                    + "Fix them, or give --endpoint-url, --region and --profile. Nothing was downloaded.\n", error.kind)
        case .notEnoughSpace(let shortfall, let root):
            return console.failed(
                "not enough free space in \(root): the pull needs \(ByteCount.human(shortfall.needed)) "
                    + "(\(ByteCount.human(shortfall.toDownload)) to download and a margin of \(ByteCount.human(shortfall.margin))), "
                    + "but \(ByteCount.human(shortfall.free)) is free. Nothing was downloaded; free some space and run again.\n", .localIO)
        case .deleteInUnmanagedDirectory(let root):
            return console.failed(
                "--delete removes nothing from \(root): no earlier pull completed there (it has no "
                    + ".assetsync/state), so it may not be a directory assetsync manages. Pull once without --delete first.\n", .invalidInput)
        case .tooManyDeletions(let count, let maximum):
            return console.failed(
                "--delete would remove \(count) files, more than --max-delete \(maximum); nothing was changed. "
                    + "Check that this is the right manifest, or pass --max-delete \(count).\n", .invalidInput)
        case .scan(let error):
            return console.failed("cannot scan the cache directory: \(error.message). Check its permissions, or run as its owner.\n", error.kind)
        case .record(let error):
            return console.failed("cannot write the state index: \(error.message). Check free space and permissions.\n", error.kind)
        case .notInGenerations(let dest):
            return console.failed(
                "--dest \(QuotedValue.quote(dest)) is not an atomic cache directory (no pull --atomic made it one), "
                    + "so it has no generations to go back to.\n", .invalidInput)
        case .rollback(let error):
            return console.failed("\(error.message).\n", error.kind)
        case .interrupted:
            if command == "verify" { console.err("Interrupted: nothing was recorded; run 'assetsync verify' again to read every file.\n") }
            return .interrupted
        }
    }


    /// Why the manifest `name` could not be read, as a line after "Error: ".
    static func unreadable(manifest name: String, reason: String) -> String {
        "\(QuotedValue.displayPath(name)): cannot read the manifest: \(reason).\n"
    }

    /// That the manifest `name` is larger than any manifest may be, as a line after "Error: ".
    static func tooLarge(manifest name: String) -> String {
        "\(QuotedValue.displayPath(name)): the manifest is larger than the \(ByteCount.human(Manifest.sizeLimit)) limit.\n"
    }

    private func usage(_ message: String) -> ExitStatus {
        CommandLineTool.usageFailure(UsageError(message: message, command: command), console: console)
    }

    /// What a key file that gave no keys is, and what to do.
    private static func words(_ problem: PullRunFailure.KeyFileProblem) -> String {
        switch problem {
        case .unreadable(let reason): return "cannot be read: \(reason)"
        case .malformed(let text): return ": " + text
        case .notRead(let words, let notARegularFile):
            let remedy = notARegularFile
                ? "save the public key in a file and pass that (a pipe, a process substitution, a device or a directory is never read)"
                : "pass the public key's own file (the .pub that 'minisign -G' writes)"
            return "\(words): \(remedy)"
        }
    }

    /// Tells why the manifest is refused (its `untrusted` event was told by the run).
    private func refuse(_ refusal: TrustRefusal, manifest name: String) -> ExitStatus {
        let advice: String
        switch refusal.reason {
        case .missing:
            advice = "Sign it ('assetsync sign', or 'minisign -S') and publish the .minisig beside it."
        case .notAFile:
            advice = "Put the signature file itself there ('assetsync sign' or 'minisign -S' writes one): only a regular file is read."
        case .unknownKey:
            advice = "If you trust that key, pass its public key file with --trusted-key."
        case .malformed, .badSignature, .badTrustedComment:
            advice = "Fetch it again from its publisher; if this persists, the manifest or its signature was tampered with."
        case .badVersion:
            advice = "Sign it with a trusted comment that carries 'assetsync version=N' ('assetsync sign' does)."
        case .expired:
            advice = "Ask its publisher to sign it again with a later --expires."
        case .rollback:
            advice = "Someone may be replaying an old manifest. To go back on purpose, publish it signed with a higher version."
        }
        console.err("Error: the manifest \(QuotedValue.displayPath(name)) is not trustworthy: \(refusal.description). No file was downloaded or changed. \(advice)\n")
        return .untrusted
    }
}
