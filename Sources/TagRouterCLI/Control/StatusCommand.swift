import DaemonControl
import OrderedJSON
import SystemKit

/// `tagrouter status`: the running daemon's readers, routes, actions and
/// connections; the exit status says healthy (0), no daemon (1) or degraded (2).
enum StatusCommand: Command {
    static let name = "status"
    static let summary = "show the running daemon: readers, routes, actions, MQTT; exit 2 when degraded"
    static let about = """
        Asks the running daemon how it is: uptime; the config file and when it was
        loaded; each reader (state, device, since when, tags seen, last tag, last
        error); each route (matches); each action (delivered, failed, dropped,
        spooled, retried, queue and spool depth, last error, last success, latency
        p50/p99); the MQTT connection (state, broker, since when).

        Exit status: 0 healthy; 1 no daemon answers; 2 degraded (a reader is not
        connected, an action's last delivery failed, something is spooled, or a
        connection is down) — for scripts and monitoring.
        """
    static let jsonOption = CommandOption("--json", help: "print the daemon's answer as one JSON object")
    static let options: [any DeclaredOption] = [jsonOption, ControlOption.option]

    static func run(_ arguments: Arguments) async throws(CLIError) {
        var arguments = arguments
        let json = arguments.flag(jsonOption)
        let (path, _) = try ControlOption.clientPath(&arguments)
        try arguments.finish()
        let (client, reply) = try ControlOption.ask(path, as: "tagrouter status", "status")
        client.close()
        guard let status = reply["status"] else { throw .runtime(reply["error"]?.plainText ?? "the daemon gave no status") }
        print(json ? TerminalText.escaped(status.serialized()) : StatusReport(status).text + "\ncontrol: \(TerminalText.escaped(path))")
        if status["healthy"] == false { throw .degraded }
    }
}
