import DaemonControl
import FoundationEssentials
import OrderedJSON
import SystemKit

/// `--control PATH`, shared by `run` and the commands that talk to it.
enum ControlOption {
    static let option = ValueOption<String?>("--control", placeholder: "PATH", whenAbsent: """
        $TAGROUTER_CONTROL; else `run` listens
        at $RUNTIME_DIRECTORY/control.sock under systemd,
        $XDG_RUNTIME_DIR/tagrouter/control.sock or /tmp/tagrouter-$UID/control.sock,
        and the other commands use the first of these present after $XDG_RUNTIME_DIR's:
        the service's /run/tagrouter/control.sock, then /tmp's
        """, help: "the daemon's control socket")

    /// Where `run` listens: the path given, else the standard one. Only `run` listens;
    /// every other command finds the daemon with `clientPath`.
    static func listeningPath(_ arguments: inout Arguments) throws(CLIError) -> (path: String, explicit: Bool) {
        if let path = try arguments.value(of: option) { return (path, true) }
        return ControlSocketPath.daemon(environment: ProcessInfo.processInfo.environment)
    }

    /// Where a command looks for the daemon: the path given, else the first socket present
    /// of the standard places (`ControlSocketPath.client`). The one way every command
    /// (`status`, `events`, `reload`, `read`, `write`, `tags`) finds it.
    static func clientPath(_ arguments: inout Arguments) throws(CLIError) -> (path: String, explicit: Bool) {
        if let path = try arguments.value(of: option) { return (path, true) }
        let found = ControlSocketPath.client(environment: ProcessInfo.processInfo.environment)
        return (found.path, found.explicit)
    }

    /// A daemon answering at one of the places a command looks (`ControlSocketPath.client`) other
    /// than `own`: its socket, and who it is. `run` does not start beside it.
    static func otherDaemon(besides own: String) -> (path: String, which: String)? {
        for path in ControlSocketPath.client(environment: ProcessInfo.processInfo.environment).tried where path != own && ControlSocketPath.exists(path) {
            guard case let (client, _)? = try? ask(path, as: "tagrouter run", "status") else { continue }
            client.close()
            return (path, daemon(client.hello))
        }
        return nil
    }

    /// Which daemon answered, from its hello: `pid 4242, config /etc/tagrouter/tagrouter.yaml`.
    static func daemon(_ hello: JSONValue) -> String {
        var text = "pid \(hello["pid"]?.plainText ?? "?")"
        if let config = hello["config"]?.stringValue, !config.isEmpty { text += ", config \(config)" }
        return TerminalText.escaped(text)
    }

    /// Connects to the daemon as `name` and sends `command` (with `fields`);
    /// returns the connection and the reply. No daemon is a runtime failure (exit 1).
    static func ask(_ path: String, as name: String, _ command: String, _ fields: JSONObject = JSONObject()) throws(CLIError) -> (ControlClient, JSONValue) {
        var request = JSONObject(["command": .string(command)])
        for (key, value) in fields { request[key] = value }
        do throws(ControlError) {
            var client = try ControlClient(path: path, name: name)
            do throws(ControlError) {
                return (client, try client.request(request))
            } catch {
                client.close()
                throw error
            }
        } catch {
            throw .runtime(error.description)
        }
    }
}
