import OrderedJSON
import SystemKit

/// The daemon's `status` answer (docs/control.md) as text for a person.
struct StatusReport {
    let status: JSONValue

    init(_ status: JSONValue) { self.status = status }

    var text: String {
        var lines: [String] = []
        let healthy = status["healthy"] == true
        lines.append("tagrouter \(field(status, "version")), pid \(field(status, "pid")), up \(Self.duration(status["uptime_s"])) — \(healthy ? "healthy" : "DEGRADED")")
        lines.append("config: \(field(status, "config.file")) (loaded \(field(status, "config.loaded")))")
        lines.append("readers:")
        for reader in elements(status["readers"]) {
            var line = "  \(field(reader, "name")): \(field(reader, "state")) since \(field(reader, "since")), \(field(reader, "device")), \(field(reader, "tags_seen")) tags"
            if reader["last_tag"] != nil { line += ", last \(field(reader, "last_tag.uid")) (\(field(reader, "last_tag.type"))) at \(field(reader, "last_tag.time"))" }
            if reader["last_error"] != nil { line += "; last error at \(field(reader, "last_error.time")): \(field(reader, "last_error.message"))" }
            lines.append(line)
            if let arrival = reader["arrival_ms"] { lines.append("    place → tag.arrived: \(Self.quantiles(arrival))") }
            if case .object(let outcomes)? = reader["outcome_ms"] {
                for (action, figures) in outcomes { lines.append("    tag.arrived → \(action): \(Self.quantiles(figures))") }
            }
        }
        lines.append("routes:")
        for route in elements(status["routes"]) { lines.append("  \(field(route, "name")): \(Self.matches(route))") }
        lines.append("actions:")
        for action in elements(status["actions"]) {
            var line = "  \(field(action, "id")): delivered \(field(action, "delivered")), failed \(field(action, "failed")), dropped \(field(action, "dropped")), "
                + "spooled \(field(action, "spooled")), retried \(field(action, "retried")); queue \(field(action, "queue_depth")), spool \(field(action, "spool_depth"))"
            if let latency = action["latency_ms"] { line += "; latency \(Self.quantiles(latency))" }
            if action["last_success"] != nil { line += "; last success \(field(action, "last_success"))" }
            if action["last_error"] != nil { line += "; last error at \(field(action, "last_error.time")): \(field(action, "last_error.message"))" }
            lines.append(line)
        }
        for connection in elements(status["connections"]) {
            var line = "\(field(connection, "plugin")): \(field(connection, "target")) \(field(connection, "state")) since \(field(connection, "since"))"
            if connection["problem"] != nil { line += " (\(field(connection, "problem")))" }
            lines.append(line)
        }
        for input in elements(status["inputs"]) {
            guard case .object(let members) = input else { continue }
            let counts = members.filter { $0.key != "input" && $0.key != "kind" }.map { "\($0.key) \($0.value.plainText)" }
            lines.append("\(field(input, "kind")) input \(field(input, "input")): " + counts.joined(separator: ", "))
        }
        lines.append("event buffer: \(field(status, "event_buffer.depth"))/\(field(status, "event_buffer.capacity")), \(field(status, "event_buffer.dropped")) dropped")
        let problems = elements(status["problems"])
        if !problems.isEmpty {
            lines.append("problems:")
            for problem in problems { lines.append("  " + problem.plainText) }
        }
        return lines.map { TerminalText.escaped($0) }.joined(separator: "\n")
    }

    private func field(_ value: JSONValue, _ path: String) -> String { value.value(atPath: path)?.plainText ?? "?" }

    private func elements(_ value: JSONValue?) -> [JSONValue] {
        if case .array(let elements)? = value { return elements }
        return []
    }

    /// "p50 31 ms, p99 45 ms" from a `{p50, p99}` object.
    private static func quantiles(_ figures: JSONValue) -> String {
        "p50 \(milliseconds(figures, "p50")), p99 \(milliseconds(figures, "p99"))"
    }

    private static func milliseconds(_ value: JSONValue, _ path: String) -> String {
        switch value.value(atPath: path) {
        case .double(let ms)?: return ms < 10 ? "\((ms * 10).rounded() / 10) ms" : "\(Int(ms.rounded())) ms"
        case .int(let ms)?: return "\(ms) ms"
        default: return "?"
        }
    }

    /// "1 match", "2 matches".
    private static func matches(_ route: JSONValue) -> String {
        guard case .int(let count)? = route["matches"] else { return "? matches" }
        return count == 1 ? "1 match" : "\(count) matches"
    }

    static func duration(_ seconds: JSONValue?) -> String {
        guard case .int(let total)? = seconds else { return "?" }
        let (days, hours, minutes, rest) = (total / 86_400, total / 3600 % 24, total / 60 % 60, total % 60)
        if days > 0 { return "\(days)d\(hours)h" }
        if hours > 0 { return "\(hours)h\(minutes)m" }
        return minutes > 0 ? "\(minutes)m\(rest)s" : "\(rest)s"
    }
}
