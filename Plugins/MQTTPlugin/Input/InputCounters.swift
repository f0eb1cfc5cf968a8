import Synchronization
import TagCore

/// What an `mqtt` input has seen since it started, readable while it runs.
public final class InputCounters: Sendable {
    private let counts = Mutex((received: 0, duplicates: 0, malformed: 0, ignored: 0))

    public init() {}

    /// Messages that arrived on the input's topic.
    public var received: Int { counts.withLock { $0.received } }
    /// Copies of an event id seen within the `dedup` window, dropped.
    public var duplicates: Int { counts.withLock { $0.duplicates } }
    /// Messages that were not of the input's format, logged and skipped.
    public var malformed: Int { counts.withLock { $0.malformed } }
    /// Messages of the format that carried no reading (Tasmota's telemetry of other sensors).
    public var ignored: Int { counts.withLock { $0.ignored } }

    func countReceived() { counts.withLock { $0.received += 1 } }
    func countDuplicate() { counts.withLock { $0.duplicates += 1 } }
    /// Counts a malformed message and returns how many there were.
    func countMalformed() -> Int { counts.withLock { $0.malformed += 1; return $0.malformed } }
    func countIgnored() { counts.withLock { $0.ignored += 1 } }

    /// The counts as log fields.
    var fields: JSONObject {
        let counts = counts.withLock { $0 }
        return JSONObject([
            "received": .int(Int64(counts.received)), "duplicates": .int(Int64(counts.duplicates)),
            "malformed": .int(Int64(counts.malformed)), "ignored": .int(Int64(counts.ignored)),
        ])
    }
}
