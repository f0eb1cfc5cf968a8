import TagCore

/// One event handed to one action: what `Action.perform` receives.
public struct Delivery: Sendable {
    public var event: TagEvent
    /// The name of the route that matched.
    public var route: String
    /// 1 for the first try, then 2, 3… as the delivery policy retries.
    public var attempt: Int
    /// The template root: the event's JSON members plus `route` and `json`.
    public let variables: JSONValue

    public init(event: TagEvent, route: String, attempt: Int = 1) {
        self.event = event
        self.route = route
        self.attempt = attempt
        self.variables = Template.variables(for: event, route: route)
    }

    init(event: TagEvent, route: String, variables: JSONValue) {
        self.event = event
        self.route = route
        self.attempt = 1
        self.variables = variables
    }
}

/// Why an action failed, and so what the delivery policy does next.
public enum ActionError: Error, Sendable, CustomStringConvertible {
    /// The target may recover (connection refused, 5xx, broker down): retry,
    /// no sooner than `after` when given (a `Retry-After`), then spool.
    case retryable(String, after: Duration? = nil)
    /// Retrying will not help (4xx, a refused scheme, bad input): log, count, drop.
    case permanent(String)

    public var description: String {
        switch self {
        case .retryable(let message, _), .permanent(let message): return message
        }
    }
}
