import AssetSyncCache
import AssetSyncManifestIO
import AssetSyncModel
import AssetSyncSystem
import Glibc

/// `assetsync manifest`: describe a directory as a manifest, for the publishing side.
package enum ManifestCommand {
    package static func run(_ arguments: ParsedArguments, context: CommandContext) throws(ExitStatus) {
        let console = context.console
        let directory = arguments.arguments[0]
        guard let base = arguments.value("--base") else {
            throw CommandLineTool.usageFailure(
                UsageError(message: "Missing '--base <url>': each file is fetched at base + its path", command: "manifest"),
                console: console)
        }
        let formatText = arguments.value("--format") ?? "xml"
        guard let format = ManifestWriter.Format(rawValue: formatText) else {
            throw CommandLineTool.usageFailure(
                UsageError(message: "'--format' must be xml or json, not '\(formatText)'", command: "manifest"), console: console)
        }
        let signing = try signing(arguments, console: console)
        var status = stat()
        guard stat(directory, &status) == 0, status.st_mode & S_IFMT == S_IFDIR else {
            console.err("Error: \(QuotedValue.quote(directory)) is not a directory.\n")
            throw .invalidInput
        }
        let manifest: Manifest
        do {
            manifest = try DirectoryDescription.describe(
                directory, base: base.hasSuffix("/") ? base : base + "/", withSHA256: arguments.flags.contains("--sha256"),
                chunking: arguments.flags.contains("--chunks") ? ChunkParameters.standard : nil)
        } catch {
            switch error {
            case .base(let base):
                let problem = base.problem + (base.remedy?.words ?? "") + (base.value.map { ": " + $0 } ?? "")
                throw CommandLineTool.usageFailure(UsageError(message: "Invalid '--base': \(problem)", command: "manifest"), console: console)
            case .scan, .read:
                console.err("Error: cannot read \(QuotedValue.quote(directory)): \(error.message).\n")
            case .unrepresentable:
                console.err("Error: \(error.message). Rename it, or move it out of \(QuotedValue.quote(directory)).\n")
            }
            throw ExitStatus(error.kind)
        }
        let text = ManifestWriter.render(manifest, as: format)
        guard let output = arguments.value("--output") else {
            console.out(text)
            return try console.checkOutput("the manifest", allowingClosedByReader: false)
        }
        do {
            try AtomicFile.write(text, to: output)
        } catch {
            console.err("Error: cannot write \(QuotedValue.quote(output)): \(error).\n")
            throw ExitStatus(error.kind)
        }
        console.err("Wrote \(output): \(manifest.entries.count) files, \(ByteCount.human(manifest.totalBytes)).\n")
        if let signing { try Array(text.utf8).withBytes { bytes throws(ExitStatus) in try signing.sign(bytes, of: output, console: console) } }
    }

    /// The signing `--sign` asks for (with `--version` and `--expires`), or nil without it.
    private static func signing(_ arguments: ParsedArguments, console: Console) throws(ExitStatus) -> ManifestSigning? {
        guard let keyPath = arguments.value("--sign") else {
            if let option = ManifestSigning.valueOptions.keys.sorted().first(where: { arguments.value($0) != nil }) {
                throw CommandLineTool.usageFailure(UsageError(message: "'\(option)' goes with '--sign'", command: "manifest"), console: console)
            }
            return nil
        }
        guard arguments.value("--output") != nil else {
            throw CommandLineTool.usageFailure(
                UsageError(message: "'--sign' goes with '--output <file>': the signature is written beside it", command: "manifest"),
                console: console)
        }
        return try ManifestSigning.parse(arguments, keyPath: keyPath, command: "manifest", console: console)
    }
}
