import DaemonControl
import OrderedJSON
import SystemKit
import TagCore

/// `tagrouter events`: the running daemon's events as they happen, each
/// followed by its outcome, until interrupted.
enum EventsCommand: Command {
    static let name = "events"
    static let summary = "follow the running daemon's events and what each one did"
    static let about = """
        Prints each event the running daemon routes as it happens, then its
        outcome: the routes it matched and, as each action ends, its result and
        time. When no route matched, the condition that failed in each route
        (the verdicts of `tagrouter check-config --explain`). Runs until Ctrl-C.
        """
    static let readerOption = ValueOption<String?>("--reader", placeholder: "NAME", help: "only events of this reader")
    static let routeOption = ValueOption<String?>("--route", placeholder: "NAME", help: "only events that matched this route (and its actions)")
    static let kindOption = ValueOption<TagEvent.Kind?>("--kind", help: "only events of this kind")
    static let jsonOption = CommandOption("--json", help: "one JSON object per line, as the daemon sends them (docs/control.md)")
    static let options: [any DeclaredOption] = [readerOption, routeOption, kindOption, jsonOption, ControlOption.option]

    static func run(_ arguments: Arguments) async throws(CLIError) {
        var arguments = arguments
        var filters = JSONObject()
        filters["reader"] = try arguments.value(of: readerOption).map(JSONValue.string)
        filters["route"] = try arguments.value(of: routeOption).map(JSONValue.string)
        filters["kind"] = try arguments.value(of: kindOption).map { .string($0.rawValue) }
        let json = arguments.flag(jsonOption)
        let (path, _) = try ControlOption.clientPath(&arguments)
        try arguments.finish()
        var (client, reply) = try ControlOption.ask(path, as: "tagrouter events", "events", filters)
        defer { client.close() }
        guard reply["ok"] == true else { throw .runtime(reply["error"]?.plainText ?? "the daemon refused to stream events") }
        printToStderr("following the events of tagrouter (\(ControlOption.daemon(client.hello))) at \(path); Ctrl-C ends")
        while let record = client.next() {
            print(json ? TerminalText.escaped(record.serialized()) : EventLine(record).text)
        }
        throw .runtime("the daemon stopped")
    }
}

/// One record of the event stream as a line for a person.
struct EventLine {
    let record: JSONValue

    init(_ record: JSONValue) { self.record = record }

    /// The record as one or more lines, each escaped for a terminal.
    var text: String {
        switch record["type"]?.stringValue {
        case "event": return eventText
        case "action":
            var line = "    \(text("action")) \(text("result")) after \(text("latency_ms")) ms"
            if let reason = record["reason"]?.stringValue { line += ": \(reason)" }
            return TerminalText.escaped(line)
        case "dropped": return "    (\(text("count")) records dropped: this terminal reads too slowly)"
        default: return TerminalText.escaped(record.serialized())
        }
    }

    private var eventText: String {
        let event = record["event"] ?? .null
        var parts = [clock(event["time"]?.stringValue ?? ""), event["reader"]?.plainText ?? "?", event["event"]?.plainText ?? "?"]
        if let uid = event.value(atPath: "tag.uid")?.stringValue { parts.append(uid) }
        if let type = event.value(atPath: "tag.type")?.stringValue { parts.append(type) }
        if let name = event.value(atPath: "tag.name")?.stringValue { parts.append("'\(name)'") }
        if let uri = event["uri"]?.stringValue { parts.append("uri=\(uri)") }
        if let text = event["text"]?.stringValue { parts.append("text=\(JSONValue.string(text).serialized())") }
        if let message = event["message"]?.stringValue { parts.append("(\(message))") }
        var lines = [parts.joined(separator: " ")]
        if case .array(let routes)? = record["routes"], !routes.isEmpty {
            lines[0] += " → " + routes.map(\.plainText).joined(separator: ", ")
        } else {
            lines[0] += " → no route matched"
            if case .array(let verdicts)? = record["verdicts"] {
                for verdict in verdicts {
                    guard case .array(let failed)? = verdict["failed"] else { continue }
                    lines.append("    route \(verdict["route"]?.plainText ?? "?"): " + failed.map(\.plainText).joined(separator: "; "))
                }
            }
        }
        return lines.map { TerminalText.escaped($0) }.joined(separator: "\n")
    }

    private func text(_ key: String) -> String { record[key]?.plainText ?? "?" }

    /// `HH:MM:SS.mmm` of an ISO 8601 time (UTC), or the text as it is.
    private func clock(_ time: String) -> String {
        guard let t = time.firstIndex(of: "T") else { return time }
        return String(time[time.index(after: t)...].prefix(12))
    }
}
