import ChildProcess
import Lifecycle
import Synchronization
import TagRouter

/// The `exec` action: a plugin in any language, run as a long-lived child
/// that reads one event per line and answers one line per event (the protocol
/// is in docs/plugins.md). Started when the config is loaded, restarted with
/// backoff when it dies; its stderr goes to the log.
public struct ExecPlugin: ActionPlugin {
    public static let name = "exec"

    public static let actionSpec = OptionSpec("hand events to a long-running plugin program (JSON lines on stdin/stdout)", scalarOption: "command", [
        Option("command", .list(.string), required: true, "the program and its arguments (not templated, no shell)"),
        Option("cwd", .string, "the directory it runs in (relative to the config file)"),
        Option("env", .map(.string), "more environment variables"),
        Option("timeout", .duration, default: "30s", "how long an answer may take; then the plugin is restarted and the delivery retried"),
        Option("restart_backoff", .duration, default: "1s", "wait before restarting a plugin that died; doubles up to `max_restart_backoff`"),
        Option("max_restart_backoff", .duration, default: "1m", "the longest wait between restarts"),
    ])

    private let context: PluginContext
    private let sessions = SessionList()

    public init(section: ConfigValue, context: PluginContext) throws(ConfigErrors) {
        self.context = context
    }

    public func makeAction(_ options: ConfigValue, route: String) throws(ConfigErrors) -> any Action {
        guard let arguments = options.optionalStrings("command"), !arguments.isEmpty, !arguments[0].isEmpty else { throw options.error("command", "the command is empty: give the program as the first element") }
        var environment = ChildCommand.inheritedEnvironment
        for (name, value) in options.entries("env") { environment[name] = value.stringValue ?? "" }
        let directory = options.optionalString("cwd").map(context.config.resolve)
        if let directory, let problem = ChildCommand.problem(withWorkingDirectory: directory) { throw options.error("cwd", problem.description) }
        let command = ChildCommand(arguments, environment: environment, workingDirectory: directory)
        let session = ExecSession(
            command: command, route: route, replyTimeout: options.duration("timeout"),
            backoff: Backoff(initial: options.duration("restart_backoff"), maximum: options.duration("max_restart_backoff")))
        sessions.append(session)
        return ExecAction(session: session)
    }

    /// Runs every plugin program (not under `--dry-run`) until cancelled; then
    /// closes their stdin and waits for them to exit (terminating them after a grace period).
    public func run() async {
        guard !context.dryRun else { return await Latch().wait() }
        await withTaskGroup(of: Void.self) { group in
            for session in sessions.all { group.addTask { await session.run() } }
        }
    }
}

/// The sessions of one config's `exec` actions.
private final class SessionList: Sendable {
    private let sessions = Mutex<[ExecSession]>([])

    func append(_ session: ExecSession) { sessions.withLock { $0.append(session) } }

    var all: [ExecSession] { sessions.withLock { $0 } }
}

/// One configured `exec` action: its deliveries go to its session's child.
struct ExecAction: Action {
    let session: ExecSession

    func perform(_ delivery: Delivery) async throws(ActionError) {
        try await session.deliver(delivery)
    }

    func describe(_ delivery: Delivery) -> String { "send the event to \(session.command)" }
}
