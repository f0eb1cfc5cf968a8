/// How one route fared against one event, for `check-config --explain`.
public struct RouteExplanation: Sendable {
    public var route: String
    /// False when an earlier matching route without `continue: true` stopped the search.
    public var tried: Bool
    public var matched: Bool
    public var conditions: [ConditionResult]
    /// What each action would do, `plugin: description`, when the route matched.
    public var actions: [String]
}
