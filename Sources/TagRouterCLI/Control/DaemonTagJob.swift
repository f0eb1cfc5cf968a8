@preconcurrency import Glibc
import DaemonControl
import OrderedJSON
import SystemKit
import TagCore
import TagReader
import TagRouterDaemon

/// `tagrouter write` and `read` through the running daemon (docs/control.md
/// "write and read"): when a daemon answers on the control socket and runs the
/// reader, the job goes to it — its reader thread does it between polls, and the
/// tag is not routed as a tap. Without a daemon (or when it does not run that
/// reader, or a `--device` given is not held by any process) the command opens
/// the device itself.
enum DaemonTagJob {
    /// `--reader`, `--direct` and `--control`, which `read` and `write` share.
    static let readerOption = ValueOption<String?>(
        "--reader", placeholder: "NAME", whenAbsent: "its only reader, or --device's", help: "through the daemon: the reader of that name")
    static let directOption = CommandOption("--direct", help: "open the device here, even when a running daemon holds it (it then says `in use by pid N`)")
    static let options: [any DeclaredOption] = [readerOption, directOption, ControlOption.option]
    /// How `read` and `write` choose the reader, first on their usage lines.
    static let synopsisParts: [Synopsis.Part] = [
        .optional(.either([.option(ReaderOptions.deviceOption)], [.option(readerOption)])), .optional(ReaderOptions.ifBusyOption),
        .optional(directOption), .optional(ControlOption.option), .optional(ReaderOptions.timeoutOption),
    ]

    /// Sends `command` (`write` or `read`, with `fields`) to the daemon and returns its
    /// successful reply, or throws the refusal. Nil — open the device here — when the
    /// `--device` given is held by no process, no daemon answers at `control` (not given
    /// explicitly), it runs no such reader, or it is a tagrouter without this command.
    /// `reader`: the name given with --reader; `device`: the --device given.
    static func ask(
        _ command: String, _ fields: JSONObject, control: (path: String, explicit: Bool), reader: String?, device: String?, timeout: Duration
    ) throws(CLIError) -> JSONValue? {
        if let device, reader == nil, !control.explicit, !BuiltinPlugins.readers.driver(for: device).isHeldElsewhere(device) { return nil }
        var client: ControlClient
        do throws(ControlError) {
            client = try ControlClient(path: control.path, name: "tagrouter \(command)")
        } catch {
            if case .noDaemon = error, !control.explicit { return nil }
            throw .runtime(error.description)
        }
        defer { client.close() }
        var request = fields
        request["command"] = .string(command)
        request["reader"] = (reader ?? device).map(JSONValue.string)
        request["timeout_s"] = .double(timeout / .seconds(1))
        if isatty(STDERR_FILENO) == 1 {
            let which = (reader ?? device).map { "'\($0)'" } ?? "the reader"
            printToStderr("Hold a tag to \(TerminalText.escaped(which)) of the running daemon (\(ControlOption.daemon(client.hello))) (Ctrl-C to stop)…")
        }
        let reply: JSONValue
        do throws(ControlError) {
            reply = try client.request(request, timeout: Int32(clamping: Int64(timeout / .milliseconds(1)) + 10_000))
        } catch {
            throw .runtime(error.description)
        }
        if reply["ok"] == true { return reply }
        if reply["refused"] == nil, !control.explicit, reply["error"]?.stringValue?.hasPrefix("unknown command") == true { return nil }
        let message = reply["error"]?.plainText ?? "the daemon answered \(reply.serialized().prefix(120))"
        guard let code = reply["refused"]?.stringValue, let reason = TagJobRefusal.Reason(rawValue: code) else { throw .runtime(message) }
        if reason == .noReader, !control.explicit, reader == nil { return nil }
        throw failure(TagJobRefusal(reason, message))
    }

    /// The exit status a refusal deserves: 65 when the tag or the message is the problem, else 1.
    static func failure(_ refusal: TagJobRefusal) -> CLIError {
        switch refusal.reason {
        case .tooLarge, .readOnly, .passwordProtected, .wrongPassword, .unsupported, .damaged, .badRequest: return .data(refusal.message)
        case .noTag, .tagLeft, .noReader, .cancelled, .busy, .failed: return .runtime(refusal.message)
        }
    }
}
