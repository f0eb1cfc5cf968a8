import FoundationEssentials
import OrderedJSON
import TagCore

/// What the daemon knows about one reader, learned from the events it sent.
public struct ReaderStatus: Sendable {
    /// Where the reader stands.
    public enum State: String, Sendable {
        /// Configured; no event from it yet.
        case starting
        /// Its device has not opened since the reader started (`reader.waiting`): missing, not admitted
        /// by a device sandbox, held by another process; `lastError` says why. The reader keeps looking.
        case waiting
        case connected
        /// Gone (unplugged, lost); the reader loop is waiting for it to return.
        case disconnected
        /// The last event was an error (the device could not be opened or initialised).
        case error
    }

    /// The last tag that arrived.
    public struct Sighting: Sendable {
        public var uid: String
        public var type: String
        public var time: Date
    }

    public var name: String
    public var device: String
    public var state = State.starting
    /// Since when `state` holds.
    public var since: Date
    /// `tag.arrived` events since the daemon started.
    public var tagsSeen = 0
    public var lastTag: Sighting?
    public var lastError: Incident?
    /// Place → `tag.arrived` as far as the reader can tell (`TagEvent.arrivalLatency`).
    public var arrival = LatencyRecord()
    /// `tag.arrived` → each action's outcome for it (delivered, failed, dropped), by action id.
    public var outcomes: [String: LatencyRecord] = [:]

    init(_ config: ReaderConfig, since: Date) {
        name = config.name
        device = config.device
        self.since = since
    }

    /// Takes in one event of this reader.
    mutating func observe(_ event: TagEvent) {
        switch event.kind {
        case .readerConnected: change(to: .connected, at: event.time)
        case .readerDisconnected:
            change(to: .disconnected, at: event.time)
            lastError = Incident(event.message ?? "disconnected", at: event.time)
        case .readerError:
            change(to: .error, at: event.time)
            lastError = Incident(event.message ?? "error", at: event.time)
        case .readerWaiting:
            change(to: .waiting, at: event.time)
            lastError = Incident(event.message ?? "waiting for its device", at: event.time)
        case .tagArrived:
            tagsSeen += 1
            if let tag = event.tag { lastTag = Sighting(uid: tag.uid.hex, type: tag.type, time: event.time) }
            if let latency = event.arrivalLatency { arrival.record(latency) }
        case .tagRemoved, .tagHeld, .tagTapped:
            break
        }
    }

    /// Action `action` reached its outcome for one of this reader's arrivals, `seconds` after it.
    mutating func outcome(of action: String, after seconds: Double) {
        outcomes[action, default: LatencyRecord()].record(seconds: seconds)
    }

    private mutating func change(to state: State, at time: Date) {
        guard state != self.state else { return }
        self.state = state
        since = time
    }

    var json: JSONValue {
        var object = JSONObject([
            "name": .string(name), "device": .string(device), "state": .string(state.rawValue),
            "since": .string(since.statusFormat), "tags_seen": .int(Int64(tagsSeen)),
        ])
        if let lastTag {
            object["last_tag"] = .object(JSONObject(["uid": .string(lastTag.uid), "type": .string(lastTag.type), "time": .string(lastTag.time.statusFormat)]))
        }
        object["last_error"] = lastError?.json
        object["arrival_ms"] = arrival.millisecondsJSON
        var outcomes = JSONObject()
        for (action, record) in self.outcomes.sorted(by: { $0.key < $1.key }) { outcomes[action] = record.millisecondsJSON }
        if outcomes.count > 0 { object["outcome_ms"] = .object(outcomes) }
        return .object(object)
    }
}
