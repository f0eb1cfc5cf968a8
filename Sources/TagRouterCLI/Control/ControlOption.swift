import DaemonControl
import FoundationEssentials
import TagCore

/// `--control PATH`, shared by `run` and the commands that talk to it.
enum ControlOption {
    static let usage = """
          --control PATH       the daemon's control socket (default: $RUNTIME_DIRECTORY/control.sock under
                               systemd, else $XDG_RUNTIME_DIR/tagrouter/control.sock, else /tmp/tagrouter-$UID/control.sock)
        """

    /// The path given, else the standard one.
    static func path(_ arguments: inout Arguments) throws(CLIError) -> (path: String, explicit: Bool) {
        if let path = try arguments.option("--control") { return (path, true) }
        return (ControlSocketPath.standard(environment: ProcessInfo.processInfo.environment), false)
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
