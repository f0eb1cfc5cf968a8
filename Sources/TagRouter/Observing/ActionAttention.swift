import FoundationEssentials
import OrderedJSON
import Synchronization
import SystemKit
import TagCore

/// The log lines of one action, by one rule: a success is a debug line (the
/// per-tap line already says which routes matched); what needs a person gets a
/// line — a failure, a retry, a spool, a drop — and so does the recovery
/// ("home.0.mqtt: recovered after 3m12s; 12 spooled events delivered").
/// A flood is summarised: the same kind of line with the same reason within
/// `window` is written at debug level only, and the next such line at its own
/// level says how many it stands for.
final class ActionAttention: Sendable {
    private struct Flood {
        var since: Date
        var unshown = 0
    }

    private struct State {
        /// When the first delivery failed since the last recovery.
        var troubleSince: Date?
        /// Deliveries still to make before the recovery line: the backlog when the target
        /// answered again (the event and what waited behind it), or an earlier run's spool.
        var backlog: Int?
        /// Spooled events of the backlog delivered so far.
        var spoolDelivered = 0
        var floods: [String: Flood] = [:]
    }

    private let action: ConfiguredAction
    private let window: TimeInterval
    private let state = Mutex(State())
    /// Where the lines go: this logger (a test's), else `Logger.current` when each is written.
    private let logger: Logger?

    init(_ action: ConfiguredAction, window: Duration = .seconds(60), logger: Logger? = nil) {
        self.action = action
        self.window = Double(window.components.seconds)
        self.logger = logger
    }

    /// One result of a delivery. `quiet`: the target is known down and its plugin said so once
    /// (or a summary line says it), so this is a debug line. `fromSpool`: the event was
    /// written to the spool; `spoolLeft`: events still spooled behind it (at the first success
    /// after trouble they are the backlog the recovery line waits for and counts).
    func note(
        _ result: ActionResult, _ event: TagEvent, reason: String?, quiet: Bool = false, fromSpool: Bool = false, spoolLeft: Int = 0,
        at time: Date = Date()
    ) {
        switch result {
        case .delivered:
            delivered(event, fromSpool: fromSpool, spoolLeft: spoolLeft, at: time)
        case .retried:
            line(quiet ? .debug : .warning, "delivery failed; will retry", event, reason, at: time)
        case .spooled:
            line(quiet ? .debug : .warning, "event kept in the spool for later", event, reason, at: time)
        case .failed:
            line(quiet ? .debug : .error, "delivery failed; event not delivered", event, reason, at: time)
        case .dropped:
            line(.warning, "event dropped", event, reason, at: time)
        }
    }

    /// At start: `count` events an earlier run spooled are delivered first.
    func spooledFromBefore(_ count: Int) {
        state.withLock { $0.backlog = count }
        write(.info, "\(action.id): delivering \(count) spooled event\(count == 1 ? "" : "s") from before", JSONObject(["action": .string(action.id)]))
    }

    /// A debug line, or the recovery line once the backlog the trouble left is delivered.
    private func delivered(_ event: TagEvent, fromSpool: Bool, spoolLeft: Int, at time: Date) {
        let recovery = state.withLock { state -> (trouble: Date?, spooled: Int)? in
            guard state.troubleSince != nil || state.backlog != nil else { return nil }
            let backlog = (state.backlog ?? (1 + (fromSpool ? spoolLeft : 0))) - 1
            if fromSpool { state.spoolDelivered += 1 }
            state.backlog = backlog
            guard backlog <= 0 else { return nil }
            defer { state = State(floods: state.floods) }
            return (state.troubleSince, state.spoolDelivered)
        }
        guard let recovery else {
            return write(.debug, "\(action.id): delivered", fields(event))
        }
        var parts: [String] = []
        var fields = fields(event)
        if let trouble = recovery.trouble {
            let seconds = time.timeIntervalSince(trouble)
            parts.append("recovered after \(Self.elapsed(seconds))")
            fields["outage_seconds"] = .double(seconds)
        }
        if recovery.spooled > 0 {
            parts.append("\(recovery.spooled) spooled event\(recovery.spooled == 1 ? "" : "s") delivered")
            fields["count"] = .int(Int64(recovery.spooled))
        }
        write(.info, "\(action.id): " + parts.joined(separator: "; "), fields)
    }

    /// A line for trouble; the same line within the window goes to debug and is counted.
    private func line(_ level: Log.Level, _ what: String, _ event: TagEvent, _ reason: String?, at time: Date) {
        let key = what + "\u{0}" + (reason ?? "")
        let unshown = state.withLock { state -> Int? in
            if state.troubleSince == nil { state.troubleSince = time }
            state.backlog = nil  // in trouble (again): the backlog is taken anew at the next success
            if var flood = state.floods[key], time.timeIntervalSince(flood.since) < window {
                flood.unshown += 1
                state.floods[key] = flood
                return nil
            }
            defer { state.floods[key] = Flood(since: time) }
            return state.floods[key]?.unshown ?? 0
        }
        var fields = fields(event)
        var message = "\(action.id): \(what)"
        if let reason {
            message += ": \(reason)"
            fields["reason"] = .string(reason)
        }
        guard let unshown else { return write(.debug, message, fields) }
        if unshown > 0 {
            message += " (… \(unshown) more like this not shown)"
            fields["repeated"] = .int(Int64(unshown))
        }
        write(level, message, fields)
    }

    /// Below the logger's level a line is not even built: every delivery that succeeds passes here.
    private func write(_ level: Log.Level, _ message: @autoclosure () -> String, _ fields: @autoclosure () -> JSONObject) {
        (logger ?? Logger.current).write(level, message(), fields())
    }

    private func fields(_ event: TagEvent) -> JSONObject {
        var fields = JSONObject([
            "action": .string(action.id), "route": .string(action.route), "event_id": .string(event.id), "reader": .string(event.reader),
        ])
        if let tag = event.tag { fields["tag_uid"] = .string(tag.uid.hex) }
        return fields
    }

    /// `3m12s`, `45s`, `1h04m`.
    static func elapsed(_ seconds: TimeInterval) -> String {
        let total = Int(seconds.rounded())
        if total < 60 { return "\(total)s" }
        if total < 3600 { return "\(total / 60)m\(String(total % 60).leftPadded(toLength: 2, with: "0"))s" }
        return "\(total / 3600)h\(String(total % 3600 / 60).leftPadded(toLength: 2, with: "0"))m"
    }
}
