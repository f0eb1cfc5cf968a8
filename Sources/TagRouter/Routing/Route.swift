/// One entry of `routes:`, compiled: its matcher and its actions in order.
public struct Route: Sendable {
    public let name: String
    public let matcher: Matcher
    public let actions: [ConfiguredAction]
    /// `continue: true`: later routes are tried even when this one matched.
    public let continues: Bool
    public let mark: SourceMark

    /// The options of one route.
    static let spec = OptionSpec("one rule: when an event matches, run the actions", [
        Option("name", .string, "a name for logs, `--explain` and the `route` template variable; unique (default `route-N`)"),
        Option("match", .section(MatchSpec.spec), "the conditions; without `match` every `tag.arrived` matches"),
        Option("actions", .list(.any), required: true, "what to do, in order: `- <action>: <options>` (`- log` alone for defaults)"),
        Option("continue", .bool, default: "false", "also try the routes after this one when it matched"),
    ])
}

/// One action of a route, with what the router needs to run it.
public struct ConfiguredAction: Sendable {
    /// The plugin's name (`mqtt`, `log`).
    public let plugin: String
    public let route: String
    /// Its position in the route's `actions`.
    public let index: Int
    public let action: any Action
    public let policy: DeliveryPolicy
    public let mark: SourceMark
    /// A stable name for logs, counters and the spool directory: `route.index.plugin`.
    /// Spelled once here: the observer looks every delivery's result up by it.
    public let id: String

    public init(plugin: String, route: String, index: Int, action: any Action, policy: DeliveryPolicy, mark: SourceMark) {
        self.plugin = plugin
        self.route = route
        self.index = index
        self.action = action
        self.policy = policy
        self.mark = mark
        let safeRoute = String(route.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" ? $0 : "_" })
        id = "\(safeRoute).\(index).\(plugin)"
    }
}
