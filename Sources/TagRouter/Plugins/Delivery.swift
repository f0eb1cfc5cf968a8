import Lifecycle
import OrderedJSON
import Synchronization
import TagCore

/// One event handed to one action: what `Action.perform` receives.
public struct Delivery: Sendable {
    /// The event and the forms it is sent in, shared by every delivery of it.
    private let routed: RoutedEvent
    /// The name of the route that matched.
    public var route: String
    /// 1 for the first try, then 2, 3… as the delivery policy retries.
    public var attempt: Int
    /// Released when a spooled action has written the delivery ahead (see `Acceptance`).
    var acceptance: Acceptance?

    public var event: TagEvent { routed.event }

    /// The template root: the event's JSON members plus `route` and `json`.
    /// Built on first use, off the router's path, once for all actions of a route.
    public var variables: JSONValue { routed.variables(route: route) }

    /// The event JSON (`variables["json"]`), built once per event.
    public var eventJSON: JSONValue { routed.json }

    /// The event as one line of JSON text (`TagEvent.jsonText`), written once per event for every action that sends
    /// the event as it is (an `mqtt` payload, a webhook body, a shell command's input) and for the spool.
    public var eventText: String { routed.text }

    public init(event: TagEvent, route: String, attempt: Int = 1) {
        self.init(RoutedEvent(event), route: route)
        self.attempt = attempt
    }

    /// A delivery sharing the event's JSON and text with the other routes it matched.
    init(_ routed: RoutedEvent, route: String) {
        self.routed = routed
        self.route = route
        self.attempt = 1
    }
}

/// An event as the router hands it to the actions of the routes it matched: its
/// JSON tree, its text and each route's template variables are built on first
/// use, once, whichever action asks first. One object per event and not a
/// generic one: freeing it looks up no type metadata at run time.
final class RoutedEvent: Sendable {
    let event: TagEvent
    private let built = Mutex(Built())

    private struct Built {
        var json: JSONValue?
        var text: String?
        /// Per route name; an event matches a route or a few.
        var variables: [(route: String, root: JSONValue)] = []

        mutating func json(of event: TagEvent) -> JSONValue {
            if let json { return json }
            let made = event.json
            json = made
            return made
        }
    }

    init(_ event: TagEvent) { self.event = event }

    var json: JSONValue { built.withLock { $0.json(of: event) } }

    var text: String {
        built.withLock { built in
            if let text = built.text { return text }
            let text = event.jsonText
            built.text = text
            return text
        }
    }

    func variables(route: String) -> JSONValue {
        built.withLock { built in
            if let made = built.variables.first(where: { $0.route == route }) { return made.root }
            let root = Template.variables(json: built.json(of: event), route: route)
            built.variables.append((route, root))
            return root
        }
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
