@preconcurrency import Glibc
import ChildProcess
import OrderedJSON
import SystemKit
import TagRouter
import TagRouterDaemon

/// `tagrouter demo`: the two-minute tour. Starts the simulator and the daemon on
/// the embedded demo config in a temporary folder, plays `DemoTour`, prints what
/// happened through `DemoNarrator`, and leaves nothing behind — also on Ctrl-C.
enum DemoCommand: Command {
    static let name = "demo"
    static let summary = "a tour with nothing to set up: simulated reader, daemon, five tags"
    static let about = """
        Shows what tagrouter does, with no reader and nothing to install or wire:
        starts the PN532 simulator (`tagrouter simulate`), runs the daemon
        (`tagrouter run`) against it on a demo config in a temporary folder, and
        places five tags one after another — a link, a tag written by the Home
        Assistant app, a text note, a badge with no NDEF message, and one held for
        3 s — printing each event and what each route did. It ends by itself in
        about 15 s (Ctrl-C stops it sooner) and removes both processes and its folder.
        The routes only print (`log` and `shell` echo): nothing needs a network.
        """
    static let printConfigOption = CommandOption("--print-config", help: "print the demo config and exit (its routes are a start for your own)")
    static let options: [any DeclaredOption] = [printConfigOption]
    static let epilogue = """
        Next steps: `tagrouter doctor` checks a real reader; docs/guide/simulator.md runs
        your own config on the simulator.
        """

    /// The whole demo, normally about 12 s, is stopped with an error after this long.
    static let deadline = Duration.seconds(25)

    private enum Ending: Sendable {
        case finished, interrupted
        case failed(CLIError)
    }

    static func run(_ arguments: Arguments) async throws(CLIError) {
        var arguments = arguments
        let printConfig = arguments.flag(printConfigOption)
        try arguments.finish()
        if printConfig {
            print(DemoWorkspace.configText, terminator: "")
            return
        }
        let signals = Signals.stream([SIGINT, SIGTERM])
        let processes = try DemoProcesses()
        let workspace = try DemoWorkspace.create()
        defer { workspace.remove() }
        let narrator = DemoNarrator(actionsPerRoute: try actionsPerRoute(workspace))
        let tour = DemoTour(control: workspace.control, narrator: narrator)
        narrator.say("""
            tagrouter demo: a simulated PN532 reader, the daemon on a demo config, five tags.
            It ends by itself in about 15 s (Ctrl-C stops it sooner). Working in \(workspace.directory):
              tagrouter simulate --link pn532 --control pn532.sock
              tagrouter run --config tagrouter.yaml      (the config: `\(Self.invocation) demo --print-config`)

            """)
        let ending = await withTaskGroup(of: Ending.self) { group in
            group.addTask {
                do throws(CLIError) {
                    try await startSimulator(processes, workspace)
                    // At debug level: a shell command's output and every action's result are debug lines (libnfc's own stay off).
                    // Its own control socket, in the workspace: the demo is no rival to a daemon that answers where
                    // `tagrouter status` looks (`run` does not start beside one), nor does it take that place.
                    try processes.start("daemon", ["run", "--config", workspace.config, "--control", workspace.controlSocket,
                                                   "--log-format", "json", "--log-level", "debug"],
                                        directory: workspace.directory,
                                        environment: ["LIBNFC_AUTO_SCAN": "false", "LIBNFC_INTRUSIVE_SCAN": "false", "LIBNFC_LOG_LEVEL": "0"]) { daemon in
                        await follow(daemon, narrator)
                    }
                    try await tour.play()
                    return .finished
                } catch {
                    return .failed(error)
                }
            }
            group.addTask {
                for await _ in signals { return .interrupted }
                return .interrupted
            }
            group.addTask {
                try? await Task.sleep(for: deadline)
                return .failed(.runtime("the demo did not end within \(deadline): it was waiting for \(tour.currentWait)"))
            }
            let first = await group.next() ?? .interrupted
            group.cancelAll()
            return first
        }
        if case .interrupted = ending { narrator.say("\ninterrupted: stopping the daemon and the simulator…") }
        let ends = await processes.stopAll()
        let counters = narrator.finish()
        workspace.remove()
        try conclude(ending, ends: ends, counters: counters, workspace: workspace, narrator: narrator)
    }

    /// How many actions each route of the demo config has: loaded and checked here, before anything starts.
    private static func actionsPerRoute(_ workspace: DemoWorkspace) throws(CLIError) -> [String: Int] {
        do {
            let config = try ConfigLoader(registry: BuiltinPlugins.registry).load(file: workspace.config)
            return Dictionary(config.routes.map { ($0.name, $0.actions.count) }) { first, _ in first }
        } catch {
            throw .data("the demo config has problems (a bug in this build): " + error.sorted.map(\.description).joined(separator: "; "))
        }
    }

    /// Starts `tagrouter simulate` and returns once it says where its control socket is.
    private static func startSimulator(_ processes: DemoProcesses, _ workspace: DemoWorkspace) async throws(CLIError) {
        let simulator = try processes.start(
            "simulator", ["simulate", "--link", workspace.link, "--control", workspace.control], directory: workspace.directory)
        for await line in simulator.stdoutLines where line.hasPrefix("control: ") { return }
        var said: [String] = []
        for await line in simulator.stderrLines { said.append(line) }
        throw .runtime("the simulator stopped before it was ready: \(said.joined(separator: "\n"))")
    }

    /// Hands the daemon's stdout and stderr to the narrator, line by line, until both end.
    private static func follow(_ daemon: ChildProcess, _ narrator: DemoNarrator) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { for await line in daemon.stdoutLines { narrator.daemonOutput(line) } }
            group.addTask { for await line in daemon.stderrLines { narrator.daemonLog(line) } }
        }
        narrator.daemonEnded()
    }

    /// The last lines: what the daemon did in all, how things ended, and what to try next.
    private static func conclude(
        _ ending: Ending, ends: [(name: String, end: ChildTermination)], counters: JSONObject?, workspace: DemoWorkspace,
        narrator: DemoNarrator
    ) throws(CLIError) {
        func total(_ key: String) -> Int64 {
            (counters ?? JSONObject()).reduce(0) { sum, action in
                guard case .int(let count)? = action.value[key] else { return sum }
                return sum + count
            }
        }
        let (delivered, failed) = (total("delivered"), total("failed"))
        let stopped = ends.map { "the \($0.name) (\($0.end))" }.joined(separator: " and ")
        narrator.say("\nThe daemon delivered \(delivered) action\(delivered == 1 ? "" : "s"), \(failed) failed. Stopped \(stopped); removed \(workspace.directory).")
        switch ending {
        case .failed(let error):
            throw error
        case .interrupted:
            throw .runtime("the demo was interrupted")
        case .finished:
            if let daemon = ends.first(where: { $0.name == "daemon" }), !daemon.end.succeeded {
                throw .runtime("the daemon did not stop cleanly (\(daemon.end)); its log is above")
            }
            if failed > 0 { throw .runtime("\(failed) action\(failed == 1 ? "" : "s") failed; the reasons are above") }
            narrator.say("""

                Next: `\(Self.invocation) demo --print-config` shows the routes used here; `\(Self.invocation) doctor` checks
                a real reader; `tagrouter simulate` (docs/guide/simulator.md) tries your own config without one.
                """)
        }
    }

    /// How to run this very binary again: the path it was started by when that names a folder
    /// (`make demo` runs `.build/…/debug/tagrouter`, which is on no PATH), else `tagrouter`.
    static var invocation: String {
        let path = CommandLine.arguments.first ?? "tagrouter"
        return path.contains("/") ? path : "tagrouter"
    }
}
