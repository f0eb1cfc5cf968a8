import FoundationEssentials
import OrderedJSON

/// A plugin's link to an outside service (the MQTT broker) as `status` and the
/// metrics show it. A plugin with such a link reports it through `ActionPlugin.connectionReport`.
public struct ConnectionReport: Sendable, Equatable {
    /// The plugin that holds the link (`mqtt`).
    public var plugin: String
    /// What it connects to (`127.0.0.1:1883`).
    public var target: String
    /// In a word: `connected`, `connecting`, `disconnected`…
    public var state: String
    public var connected: Bool
    /// Since when `state` holds.
    public var since: Date
    /// Why it is not connected, when it is not.
    public var problem: String?

    public init(plugin: String, target: String, state: String, connected: Bool, since: Date, problem: String? = nil) {
        self.plugin = plugin
        self.target = target
        self.state = state
        self.connected = connected
        self.since = since
        self.problem = problem
    }

    var json: JSONValue {
        var object = JSONObject([
            "plugin": .string(plugin), "target": .string(target), "state": .string(state),
            "connected": .bool(connected), "since": .string(since.statusFormat),
        ])
        object["problem"] = problem.map(JSONValue.string)
        return .object(object)
    }
}
