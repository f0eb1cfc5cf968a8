import OrderedJSON
import Synchronization
import TagCore

/// Turns what the demo's daemon prints into the tour's lines: each event once,
/// in words (`DemoEventText`), followed by what each action of its route did. It
/// reads the daemon's stdout (the `log` actions' `{"route", "event"}` lines) and
/// its JSON log on stderr (shell results, failures, the final counters). Once
/// every action of an event's route has reported, the event goes out on
/// `events`, so the tour waits for what happened instead of guessing how long it takes.
final class DemoNarrator: Sendable {
    /// One event being told: known once a `log` line carried it; its outcomes wait until then.
    private struct Telling {
        var event: TagEvent?
        /// Outcomes still to come; nil until the first one names the route.
        var outstanding: Int?
        var waiting: [String] = []
    }

    private struct State {
        var telling: [String: Telling] = [:]
        /// The daemon's last words: `{"msg": "stopped", "actions": {…}}`.
        var stopped: JSONValue?
    }

    /// Every event the daemon routed, once all its route's actions reported, in that order.
    let events: AsyncStream<TagEvent>
    private let continuation: AsyncStream<TagEvent>.Continuation
    private let state = Mutex(State())
    private let actionsPerRoute: [String: Int]

    /// `actionsPerRoute`: how many outcomes make an event told (each route of the demo config starts with `log`).
    init(actionsPerRoute: [String: Int]) {
        self.actionsPerRoute = actionsPerRoute
        (events, continuation) = AsyncStream.makeStream(of: TagEvent.self)
    }

    /// Prints a line of the tour's own (a step's title, a farewell), in order with the rest.
    func say(_ line: String) {
        state.withLock { _ in print(line) }
    }

    /// One line of the daemon's stdout: a `log` action's `{"route": …, "event": …}`.
    func daemonOutput(_ line: String) {
        guard let value = try? JSONValue.parse(line), let route = value["route"]?.stringValue,
              let eventJSON = value["event"], let event = try? TagEvent(json: eventJSON)
        else { return say("    daemon: " + line) }
        record(event.id, route: route, event: event, Self.outcome(route: route, "log: the event as one JSON line on stdout"))
    }

    /// One line of the daemon's log (stderr, `--log-format json`).
    func daemonLog(_ line: String) {
        guard let entry = try? JSONValue.parse(line), let message = entry["msg"]?.stringValue else {
            return say("    daemon: " + line)
        }
        let eventID = entry["event_id"]?.stringValue
        let route = entry["route"]?.stringValue
        let action = entry["action"]?.stringValue ?? "?"
        switch message {
        case "stopped":
            state.withLock { $0.stopped = entry }
        case "shell command finished":
            let printed = (entry["stdout"]?.plainText ?? "").trimmingTrailingNewlines
            let text = Self.outcome(route: route ?? "?", "shell: \(entry["command"]?.plainText ?? "?") → \(printed.isEmpty ? "(printed nothing)" : printed)")
            if let eventID, let route { record(eventID, route: route, text) } else { say(text) }
        case "shell command failed":
            // Not an outcome yet: the worker's "delivery failed" for the same action follows.
            let stderr = (entry["stderr"]?.plainText ?? "").trimmingTrailingNewlines
            sayAbout(eventID, Self.outcome(route: route ?? "?", "shell: \(entry["command"]?.plainText ?? "?") ended with \(entry["status"]?.plainText ?? "?") \(stderr)"))
        case _ where message.hasPrefix("\(action): delivery failed; event not delivered"):
            // At debug level every failed event has its line (a flood's repeats are debug lines).
            let text = "    action '\(action)' failed: \(entry["reason"]?.plainText ?? "")"
            if let eventID { record(eventID, route: String(action.prefix { $0 != "." }), text) } else { say(text) }
        case _ where entry["level"] == "warning" || entry["level"] == "error":
            // An action's lines say their reason already.
            let reason = (entry["reason"] ?? entry["error"]).map { ": \($0.plainText)" } ?? ""
            sayAbout(eventID, "    ! \(message)\(entry["action"] == nil ? reason : "")")
        default:
            break
        }
    }

    /// The daemon closed its output: no more events will come.
    func daemonEnded() {
        continuation.finish()
    }

    /// After the daemon exited: prints outcomes whose event never showed, and
    /// returns the daemon's final counters (`action id → counts`).
    func finish() -> JSONObject? {
        continuation.finish()
        return state.withLock { state in
            for telling in state.telling.values where telling.event == nil {
                for line in telling.waiting { print(line) }
            }
            state.telling = [:]
            guard case .object(let actions)? = state.stopped?["actions"] else { return nil }
            return actions
        }
    }

    /// One outcome of one action for the event `id` (with the event itself when the line carried it).
    private func record(_ id: String, route: String, event: TagEvent? = nil, _ line: String) {
        state.withLock { state in
            var telling = state.telling[id] ?? Telling()
            if telling.event == nil, let event {
                telling.event = event
                print(DemoEventText.line(event))
                for waiting in telling.waiting { print(waiting) }
                telling.waiting = []
            }
            if telling.event == nil { telling.waiting.append(line) } else { print(line) }
            let outstanding = (telling.outstanding ?? actionsPerRoute[route] ?? 1) - 1
            telling.outstanding = outstanding
            if outstanding == 0, let event = telling.event { continuation.yield(event) }
            state.telling[id] = telling
        }
    }

    /// A line about the event `id` that is not one of its outcomes: under the event once it is told.
    private func sayAbout(_ id: String?, _ line: String) {
        state.withLock { state in
            guard let id, state.telling[id]?.event == nil else { return print(line) }
            state.telling[id, default: Telling()].waiting.append(line)
        }
    }

    private static func outcome(route: String, _ what: String) -> String {
        "    route '\(route)' → \(what)"
    }
}

private extension String {
    /// Without the newline(s) a command's output ends with.
    var trimmingTrailingNewlines: String {
        String(self[..<(lastIndex { $0 != "\n" }.map(index(after:)) ?? startIndex)])
    }
}
