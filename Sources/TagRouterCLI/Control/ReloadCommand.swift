import DaemonControl
import OrderedJSON

/// `tagrouter reload`: the running daemon reloads its config and says how that went.
enum ReloadCommand: Command {
    static let name = "reload"
    static let summary = "reload the running daemon's config and print the result"
    static let about = """
        Asks the running daemon to load its config file again (as SIGHUP does) and
        prints the result: "reloaded: 2 readers, 7 routes", or every problem at
        file:line:col and exit status 65 — the running config then stays.
        """
    static let options: [any DeclaredOption] = [ControlOption.option]

    static func run(_ arguments: Arguments) async throws(CLIError) {
        var arguments = arguments
        let (path, _) = try ControlOption.clientPath(&arguments)
        try arguments.finish()
        let (client, reply) = try ControlOption.ask(path, as: "tagrouter reload", "reload")
        client.close()
        if let reloaded = reply["reloaded"] {
            let readers = reloaded["readers"]?.plainText ?? "?"
            let routes = reloaded["routes"]?.plainText ?? "?"
            print("reloaded: \(readers) reader\(readers == "1" ? "" : "s"), \(routes) route\(routes == "1" ? "" : "s")")
            if case .array(let notes)? = reply["notes"] { for note in notes { print(note.plainText) } }
            return
        }
        guard case .array(let problems)? = reply["problems"] else { throw .runtime(reply["error"]?.plainText ?? "the daemon did not reload") }
        for problem in problems { printToStderr(problem.plainText) }
        throw .data(reply["error"]?.plainText ?? "the config has problems")
    }
}
