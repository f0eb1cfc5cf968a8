import FoundationEssentials
import OrderedJSON
import TagCore

/// One line of the daemon's live event stream (`tagrouter events`, the page):
/// an event as routed, or how one of its actions ended.
public enum ObservedRecord: Sendable {
    /// An event left the routing loop: the routes it matched, or — when none
    /// did — every route's failed conditions (the `check-config --explain` verdicts).
    case routed(TagEvent, routes: [String], verdicts: [RouteExplanation])
    /// An action ended one delivery of an event (or dropped or spooled it).
    case action(ActionOutcome)

    /// One action's result for one event.
    public struct ActionOutcome: Sendable {
        public var eventID: String
        public var reader: String
        public var kind: TagEvent.Kind
        public var route: String
        public var action: String
        public var result: ActionResult
        public var time: Date
        /// From the event's time to `time`.
        public var latency: Double
        public var reason: String?
    }

    public var reader: String {
        switch self {
        case .routed(let event, _, _): return event.reader
        case .action(let outcome): return outcome.reader
        }
    }

    public var kind: TagEvent.Kind {
        switch self {
        case .routed(let event, _, _): return event.kind
        case .action(let outcome): return outcome.kind
        }
    }

    /// The routes an event matched, or the route of an action.
    public var routes: [String] {
        switch self {
        case .routed(_, let routes, _): return routes
        case .action(let outcome): return [outcome.route]
        }
    }

    /// The record as one JSON object: `{"type":"event",…}` or `{"type":"action",…}` (docs/control.md).
    public var json: JSONValue {
        switch self {
        case .routed(let event, let routes, let verdicts):
            var object = JSONObject(["type": "event", "event": event.json, "routes": .array(routes.map(JSONValue.string))])
            if routes.isEmpty {
                object["verdicts"] = .array(verdicts.filter(\.tried).map { verdict in
                    .object(JSONObject([
                        "route": .string(verdict.route),
                        "failed": .array(verdict.conditions.filter { !$0.passed }.map { .string("\($0.key): \($0.detail)") }),
                    ]))
                })
            }
            return .object(object)
        case .action(let outcome):
            var object = JSONObject([
                "type": "action", "event_id": .string(outcome.eventID), "reader": .string(outcome.reader),
                "kind": .string(outcome.kind.rawValue), "route": .string(outcome.route), "action": .string(outcome.action),
                "result": .string(outcome.result.rawValue), "time": .string(outcome.time.statusFormat),
                "latency_ms": .double((outcome.latency * 1000).rounded() ),
            ])
            object["reason"] = outcome.reason.map(JSONValue.string)
            return .object(object)
        }
    }
}
