import AssetSync

/// Steps every command that reads a manifest and a cache directory starts with.
/// Each reports its own failure on the console and throws the exit status.
enum CommandSteps {
    static func readManifest(_ path: String, console: Console) throws(ExitStatus) -> Manifest {
        do {
            return try ManifestReader.read(path: path)
        } catch {
            console.err("Error: \(error)\n")
            throw .invalidInput
        }
    }

    static func resolveDest(_ arguments: ParsedArguments, console: Console) throws(ExitStatus) -> String {
        let dest = arguments.value("--dest") ?? "."
        switch CacheDirectory.resolve(dest) {
        case .success(let resolved):
            return resolved
        case .failure(let problem):
            console.err("Error: --dest \(QuotedValue.quote(dest)): \(problem.message)\n")
            throw problem.status
        }
    }
}
