import AssetSync

/// A failure of `manifest` or `sign` told on the console in the command line's words, and the exit
/// status it ends the command with.
struct PublishFailureReport {
    let console: Console
    let command: String

    func status(of failure: PublishFailure) -> ExitStatus {
        switch failure {
        case .notADirectory(let path):
            return console.failed("\(QuotedValue.quote(path)) is not a directory.\n", .invalidInput)
        case .invalidBase(let base):
            let problem = base.problem + (base.remedy?.words ?? "") + (base.value.map { ": " + $0 } ?? "")
            return CommandLineTool.usageFailure(UsageError(message: "Invalid '--base': \(problem)", command: command), console: console)
        case .unreadable(let directory, let error):
            return console.failed("cannot read \(QuotedValue.quote(directory)): \(error.message).\n", error.kind)
        case .unrepresentable(let directory, let error):
            return console.failed("\(error.message). Rename it, or move it out of \(QuotedValue.quote(directory)).\n", error.kind)
        case .unwritable(let path, let error):
            return console.failed("cannot write \(QuotedValue.quote(path)): \(error.message).\n", error.kind)
        case .manifestUnreadable(let name, let reason):
            return console.failed(RunFailureReport.unreadable(manifest: name, reason: reason), .invalidInput)
        case .manifestTooLarge(let name):
            return console.failed(RunFailureReport.tooLarge(manifest: name), .invalidInput)
        case .manifest(let error):
            return console.failed("\(error.worded)\n", error.kind)
        case .keyUnreadable(let path, let reason):
            return console.failed("cannot read the secret key \(QuotedValue.quote(path)): \(reason).\n", .invalidInput)
        case .keyNotRead(let path, let words, let notARegularFile):
            let remedy = notARegularFile
                ? "keep the key in a file only the signing account can read, and pass that (a pipe, a device or a directory is never read)"
                : "pass the secret key's own file (the .key that 'minisign -G' writes)"
            return console.failed("the secret key \(QuotedValue.quote(path)) \(words): \(remedy).\n", .invalidInput)
        case .keyInvalid(let path, let reason):
            return console.failed("the secret key \(QuotedValue.quote(path)): \(reason).\n", .invalidInput)
        case .bucket(let location, let error):
            return console.failed("cannot describe \(location): \(error.messageWithRemedy). Nothing was written.\n", error.kind)
        case .objectStore(let error):
            return console.failed(
                "the bucket's S3 settings cannot be used: \(error.message). Fix them, or give --endpoint-url, --region and --profile.\n",
                error.kind)
        case .interrupted:
            console.err("Interrupted: nothing was written.\n")
            return .interrupted
        }
    }

}
