import AssetSyncCache
import AssetSyncModel
import AssetSyncPull
import AssetSyncSystem

/// `assetsync plan`: validate the manifest, scan the cache, print what a pull would do.
package enum PlanCommand {
    package static func run(_ arguments: ParsedArguments, context: CommandContext) throws(ExitStatus) {
        let console = context.console
        let options = try CommandSteps.networkOptions(arguments, command: "plan", context: context)
        let source = arguments.arguments[0]
        let manifest: Manifest
        let root: String
        if let trust = try ManifestTrust.parse(arguments, command: "plan", console: console) {
            let admitted = CommandSteps.isURL(source)
                ? try trust.admit(remoteManifest: source, cache: nil, options: options, context: context)
                : try trust.admit(localManifest: source)
            root = try CommandSteps.resolveDest(arguments, console: console)
            // A plan records nothing: a version newer than DEST's is recorded by the pull that accepts it.
            try trust.checkVersion(of: admitted, cacheAt: root, manifest: source)
            manifest = admitted.manifest
        } else {
            manifest = CommandSteps.isURL(source)
                ? try CommandSteps.fetchManifest(source, cache: nil, options: options, context: context)
                : try CommandSteps.readManifest(source, context: context)
            root = try CommandSteps.resolveDest(arguments, console: console)
        }
        let cache: CacheListing
        do {
            cache = try CacheScanner.scan(root: root)
        } catch {
            console.err("Error: cannot scan the cache directory: \(error). Check its permissions, or run as its owner.\n")
            throw ExitStatus(error.kind)
        }
        // The state index as the pull will read it (`pull --dry-run --verify` ignores it, as the pull
        // would), so the plan names the files the pull would not read.
        let index = StateIndex.load(cacheAt: root)
        let plan = SyncPlan(manifest: manifest, cache: cache, state: arguments.flags.contains("--verify") ? nil : index)
        // Where the pull would look for those bytes on the machine first: DEST (renamed or moved
        // entries), its other generations, then `--reuse-from`, as the pull searches them.
        let sources = [ReuseSource(plannedDestinationAt: root, index: index)].compactMap { $0 }
            + GenerationStore.otherGenerations(of: arguments.value("--dest") ?? ".")
            + (try CommandSteps.reuseFromSources(arguments, command: "plan", console: console))
        let reuse = PlannedReuse(plan: plan, manifest: manifest, sources: sources)
        if arguments.flags.contains("--json") {
            PlanReport.writeJSONLines(plan, reuse: reuse, to: console.out)
        } else {
            PlanReport.writeTable(plan, reuse: reuse, to: console.out)
        }
        try console.checkOutput("the plan", allowingClosedByReader: false)
    }
}
