package import AssetSync
import Glibc

/// Everything a command takes from its process: the console, standard input, the environment,
/// the stop request and the clock. `CommandLineTool.main` builds the process's own once; a test
/// can build another and run a command without a terminal, signals or real time.
package struct CommandContext: Sendable {
    package var console: Console
    /// Standard input, read for a manifest given as "-".
    package var input: Int32
    /// The environment variables (tuning variables, TERM).
    package var environment: [String: String]
    /// Stops the work when set (in the process: SIGINT or SIGTERM).
    package var stop: StopSource
    /// Monotonic seconds.
    package var clock: @Sendable () -> Double

    package init(
        console: Console, input: Int32, environment: [String: String], stop: StopSource,
        clock: @escaping @Sendable () -> Double = AssetSync.monotonicClock
    ) {
        self.console = console
        self.input = input
        self.environment = environment
        self.stop = stop
        self.clock = clock
    }

    /// The process's context: its standard descriptors, its environment and its signals
    /// (`Interruption.install` must have run).
    package static func process(console: Console) -> CommandContext {
        CommandContext(console: console, input: STDIN_FILENO, environment: AssetSync.processEnvironment(), stop: Interruption.source)
    }
}

extension CommandContext {
    /// Whether stderr is a terminal that can redraw a progress block (not TERM=dumb).
    package var errorsGoToTerminal: Bool {
        guard isatty(console.errors) == 1 else { return false }
        return environment["TERM"].map { $0 != "dumb" } ?? false
    }

    /// What the layers take from this process: its stop request, its clock, its TMPDIR.
    package var effects: ProcessEffects { ProcessEffects(stop: stop, clock: clock, environment: environment) }

    /// How a request's failures are told for `command`.
    package func failures(command: String) -> RunFailureReport {
        RunFailureReport(command: command, console: console)
    }

    /// People's output on stderr (live on a terminal) and, with `json`, events on stdout.
    package func pullReporters(quiet: Bool, json: Bool) -> PullReporters {
        let console = console
        let human = HumanPullReporter(
            output: .init(write: { console.err($0) }, clock: clock, width: { console.errorsWidth }, live: errorsGoToTerminal),
            quiet: quiet)
        let events = json ? JSONPullReporter(write: { console.out($0) }, clock: clock) : nil
        return PullReporters(human: human, json: events)
    }
}
