import FoundationEssentials
import OrderedJSON

/// What happened to one action's deliveries since the daemon started (kept
/// across reloads while the action keeps its id), and what waits for it now.
public struct ActionStatus: Sendable {
    /// The action id, `route.index.plugin`.
    public var id: String
    public var plugin: String
    public var route: String
    public var counters = ActionCounters()
    /// Deliveries waiting in memory, at the moment of the snapshot.
    public var queueDepth = 0
    /// Deliveries waiting on disk, at the moment of the snapshot.
    public var spoolDepth = 0
    public var lastError: Incident?
    public var lastSuccess: Date?
    /// Tap (event time) to delivered.
    public var latency = LatencyRecord()

    init(_ action: ConfiguredAction) {
        id = action.id
        plugin = action.plugin
        route = action.route
    }

    /// True when the last delivery that ended did not succeed.
    public var failing: Bool {
        guard let lastError else { return false }
        return lastSuccess.map { $0 < lastError.time } ?? true
    }

    mutating func observe(_ result: ActionResult, reason: String?, at time: Date, eventTime: Date) {
        switch result {
        case .delivered:
            counters.delivered += 1
            lastSuccess = time
            latency.record(seconds: time.timeIntervalSince(eventTime))
        case .failed: counters.failed += 1
        case .dropped: counters.dropped += 1
        case .spooled: counters.spooled += 1
        case .retried: counters.retried += 1
        }
        if let reason, result != .delivered, result != .dropped { lastError = Incident(reason, at: time) }
    }

    var json: JSONValue {
        var object = JSONObject([
            "id": .string(id), "plugin": .string(plugin), "route": .string(route),
            "delivered": .int(Int64(counters.delivered)), "failed": .int(Int64(counters.failed)),
            "dropped": .int(Int64(counters.dropped)), "spooled": .int(Int64(counters.spooled)),
            "retried": .int(Int64(counters.retried)), "queue_depth": .int(Int64(queueDepth)),
            "spool_depth": .int(Int64(spoolDepth)),
        ])
        object["last_error"] = lastError?.json
        object["last_success"] = lastSuccess.map { .string($0.statusFormat) }
        object["latency_ms"] = latency.millisecondsJSON
        return .object(object)
    }
}

/// How one attempt at a delivery ended, as counted and streamed.
public enum ActionResult: String, Sendable {
    case delivered, failed, dropped, spooled
    /// An attempt failed and another follows after backoff.
    case retried

    /// True for how a delivery ends (delivered, failed, dropped); false while it may still be tried again.
    public var isFinal: Bool { self == .delivered || self == .failed || self == .dropped }
}
