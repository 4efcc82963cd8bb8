import AssetSync
import Glibc

/// `assetsync plan`: validate the manifest, scan the cache, print what a pull would do.
enum PlanCommand {
    static func run(_ arguments: ParsedArguments, console: Console) -> ExitStatus {
        let manifest: Manifest
        do {
            manifest = try ManifestReader.read(path: arguments.arguments[0])
        } catch {
            console.err("Error: \(error)\n")
            return .invalidInput
        }
        let dest = arguments.values["--dest"] ?? "."
        let root: String
        switch CacheDirectory.resolve(dest) {
        case .success(let resolved): root = resolved
        case .failure(let problem):
            console.err("Error: --dest \(QuotedValue.quote(dest)): \(problem.message)\n")
            return problem.status
        }
        let cache: [String: LocalItem]
        do {
            cache = try CacheScanner.scan(root: root)
        } catch {
            console.err("Error: cannot scan the cache directory: \(error). Check its permissions, or run as its owner.\n")
            return .localIOFailure
        }
        let plan = SyncPlan(manifest: manifest, cache: cache)
        if arguments.flags.contains("--json") {
            PlanReport.writeJSONLines(plan, to: console.out)
        } else {
            PlanReport.writeTable(plan, to: console.out)
        }
        return .success
    }
}
