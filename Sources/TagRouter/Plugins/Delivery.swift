import Lifecycle
import OrderedJSON
import TagCore

/// One event handed to one action: what `Action.perform` receives.
public struct Delivery: Sendable {
    public var event: TagEvent
    /// The name of the route that matched.
    public var route: String
    /// 1 for the first try, then 2, 3… as the delivery policy retries.
    public var attempt: Int
    /// Released when a spooled action has written the delivery ahead (see `Acceptance`).
    var acceptance: Acceptance?
    private let lazyEventJSON: Lazy<JSONValue>
    private let lazyEventText: Lazy<String>
    private let lazyVariables: Lazy<JSONValue>

    /// The template root: the event's JSON members plus `route` and `json`.
    /// Built on first use, off the router's path, once for all actions of a route.
    public var variables: JSONValue { lazyVariables.value }

    /// The event JSON (`variables["json"]`), built once per event.
    public var eventJSON: JSONValue { lazyEventJSON.value }

    /// The event as one line of JSON text (`TagEvent.jsonText`), written once per event for every action that sends
    /// the event as it is (an `mqtt` payload, a webhook body, a shell command's input) and for the spool.
    public var eventText: String { lazyEventText.value }

    public init(event: TagEvent, route: String, attempt: Int = 1) {
        self.init(event: event, route: route, eventJSON: Lazy { event.json }, eventText: Lazy { event.jsonText })
        self.attempt = attempt
    }

    /// A delivery sharing the event's JSON and text with the other routes it matched.
    init(event: TagEvent, route: String, eventJSON: Lazy<JSONValue>, eventText: Lazy<String>) {
        self.event = event
        self.route = route
        self.attempt = 1
        self.lazyEventJSON = eventJSON
        self.lazyEventText = eventText
        self.lazyVariables = Lazy { Template.variables(json: eventJSON.value, route: route) }
    }
}

/// Why an action failed, and so what the delivery policy does next.
public enum ActionError: Error, Sendable, CustomStringConvertible {
    /// The target may recover (connection refused, 5xx, broker down): retry,
    /// no sooner than `after` when given (a `Retry-After`), then spool.
    case retryable(String, after: Duration? = nil)
    /// Retrying will not help (4xx, a refused scheme, bad input): log, count, drop.
    case permanent(String)
    /// Retryable, and the target is known to be down — the plugin already said so
    /// once (`no MQTT broker on localhost:1883; publishing resumes when one answers`):
    /// retried and spooled like `.retryable`, but not logged again for every event.
    case targetDown(String)

    public var description: String {
        switch self {
        case .retryable(let message, _), .permanent(let message), .targetDown(let message): return message
        }
    }

    /// The wait a `.retryable` asked for.
    public var retryAfter: Duration? {
        if case .retryable(_, let after) = self { return after }
        return nil
    }

    /// True for `.targetDown`: its failed attempts are logged at debug level only.
    public var isTargetKnownDown: Bool {
        if case .targetDown = self { return true }
        return false
    }
}
