import OrderedJSON
import SystemKit

/// The built-in `log` action: one line per event on stdout (the daemon's `LineOutput`) — its `template`
/// rendered, or by default `{"route": <route name>, "event": <event JSON>}` —
/// with control and bidi characters escaped (`TerminalText`).
public struct LogPlugin: ActionPlugin {
    public static let name = "log"
    public static let actionSpec = OptionSpec("print one line per event on stdout", scalarOption: "template", [
        Option("template", .template, "the line to print; default: `{\"route\": …, \"event\": …}` as one JSON line"),
        // Printing does not fail in a way a retry fixes: nothing is written ahead to disk unless asked.
        Option("spool", .bool, default: "false", "write each event ahead to disk under `state_dir` before printing it (off: printing fails in no way a retry fixes)"),
    ])

    private let output: LineOutput

    public init(section: ConfigValue, context: PluginContext) throws(ConfigErrors) { output = context.output }

    public func makeAction(_ options: ConfigValue, route: String) throws(ConfigErrors) -> any Action {
        LogAction(template: options.optionalTemplate("template"), output: output)
    }
}

/// One `log` action.
struct LogAction: Action {
    let template: Template?
    let output: LineOutput

    /// The line as UTF-8 bytes with its newline: the default line is written
    /// straight from the event's fields into bytes (no JSON tree, no String built
    /// and copied per event), then copied once into the line with its newline.
    func line(_ delivery: Delivery) -> [UInt8] {
        var writer = JSONWriter(capacity: 1024)
        if let template {
            writer.append(raw: template.render(delivery.variables))
        } else {
            writer.writeObject { line in
                line.member("route", string: delivery.route)
                line.member("event") { delivery.event.writeMembers(into: &$0) }
            }
        }
        return writer.withUnsafeBytes(TerminalText.escapedLine)
    }

    func perform(_ delivery: Delivery) async throws(ActionError) {
        if let failure = output.write(line: line(delivery)) {
            throw .permanent("cannot write to \(output.name): \(failure)")
        }
    }

    func describe(_ delivery: Delivery) -> String {
        "print \(template?.display(delivery.variables) ?? String(decoding: line(delivery).dropLast(), as: UTF8.self))"
    }
}
