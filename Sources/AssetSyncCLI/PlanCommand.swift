import AssetSync

/// `assetsync plan`: validate the manifest, scan the cache, print what a pull would do.
package enum PlanCommand {
    package static func run(_ arguments: ParsedArguments, context: CommandContext) throws(ExitStatus) {
        let console = context.console
        let options = try CommandSteps.networkOptions(arguments, command: "plan", context: context)
        var request = try CommandSteps.request(arguments, options: options, command: "plan", context: context)
        request.verifyAll = arguments.flags.contains("--verify")
        let planned: PlanResult
        do {
            planned = try AssetSync.plan(request, in: context.effects, events: context.pullReporters(quiet: true, json: arguments.flags.contains("--json")))
        } catch {
            throw context.failures(command: "plan").status(of: error)
        }
        if arguments.flags.contains("--json") {
            PlanReport.writeJSONLines(planned.plan, reuse: planned.reuse, to: console.out)
        } else {
            PlanReport.writeTable(planned.plan, reuse: planned.reuse, to: console.out)
        }
        try console.checkOutput("the plan", allowingClosedByReader: false)
    }
}
