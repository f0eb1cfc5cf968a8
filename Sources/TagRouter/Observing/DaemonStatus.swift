import FoundationEssentials
import OrderedJSON
import TagCore

/// A snapshot of the running daemon: what `tagrouter status` prints and the
/// metrics are made of.
public struct DaemonStatus: Sendable {
    /// One route and how many events it matched.
    public struct RouteStatus: Sendable {
        public var name: String
        public var matches: Int
    }

    /// A reload that found the file on disk broken: the daemon runs the config
    /// it had, and the next start would fail.
    public struct Rejection: Sendable {
        /// `file:line:column` of the first problem.
        public var at: String
        /// The first problem, as the reload printed it.
        public var problem: String
    }

    public var started: Date
    public var configFile: String
    public var configLoaded: Date
    public var readers: [ReaderStatus]
    public var routes: [RouteStatus]
    public var actions: [ActionStatus]
    public var connections: [ConnectionReport]
    /// The inputs that count what they receive (an `mqtt` input's refusals).
    public var inputs: [InputReport] = []
    /// Events per reader and kind (`tag.arrived`…) since the daemon started.
    public var eventCounts: [String: [String: Int]]
    public var eventBufferCapacity: Int
    public var eventBufferDepth: Int
    public var eventBufferDropped: Int
    /// Set by a rejected reload, cleared by a successful one.
    public var configRejected: Rejection? = nil

    /// What makes the daemon degraded (the config on disk rejected, a reader down,
    /// an action failing, something spooled, a connection down); empty when healthy.
    public var problems: [String] {
        var problems: [String] = []
        if let configRejected { problems.append("config on disk rejected at \(configRejected.at); running the previous one") }
        for reader in readers where reader.state != .connected {
            problems.append("reader \(reader.name) is \(reader.state.rawValue)" + (reader.lastError.map { ": \($0.message)" } ?? ""))
        }
        for action in actions {
            if action.failing { problems.append("action \(action.id) is failing" + (action.lastError.map { ": \($0.message)" } ?? "")) }
            if action.spoolDepth > 0 { problems.append("action \(action.id) has \(action.spoolDepth) event\(action.spoolDepth == 1 ? "" : "s") spooled") }
        }
        for connection in connections where !connection.connected {
            problems.append("\(connection.plugin) \(connection.target) is \(connection.state)" + (connection.problem.map { ": \($0)" } ?? ""))
        }
        return problems
    }

    private var configJSON: JSONObject {
        var config = JSONObject(["file": .string(configFile), "loaded": .string(configLoaded.statusFormat)])
        config["rejected"] = configRejected.map { JSONValue.object(JSONObject(["at": .string($0.at), "problem": .string($0.problem)])) }
        return config
    }

    public var json: JSONValue {
        let now = Date()
        return .object(JSONObject([
            "version": .string(tagrouterVersion), "pid": .int(Int64(ProcessInfo.processInfo.processIdentifier)),
            "started": .string(started.statusFormat), "uptime_s": .int(Int64(now.timeIntervalSince(started))),
            "config": .object(configJSON),
            "healthy": .bool(problems.isEmpty), "problems": .array(problems.map(JSONValue.string)),
            "readers": .array(readers.map(\.json)),
            "routes": .array(routes.map { .object(JSONObject(["name": .string($0.name), "matches": .int(Int64($0.matches))])) }),
            "actions": .array(actions.map(\.json)),
            "connections": .array(connections.map(\.json)),
            "inputs": .array(inputs.map(\.json)),
            "event_buffer": .object(JSONObject([
                "capacity": .int(Int64(eventBufferCapacity)), "depth": .int(Int64(eventBufferDepth)), "dropped": .int(Int64(eventBufferDropped)),
            ])),
        ]))
    }
}
