import OrderedJSON
import Synchronization
import TagRouter

/// What an `mqtt` input has seen since it started, readable while it runs.
public final class InputCounters: Sendable {
    private struct Counts {
        var received = 0, duplicates = 0, ignored = 0, warnings = 0, lost = 0
        var refused: [InputRefusal: Int] = [:]
    }

    private let counts = Mutex(Counts())

    public init() {}

    /// Messages that arrived on the input's topic.
    public var received: Int { counts.withLock { $0.received } }
    /// Copies of an event id seen within the `dedup` window, dropped.
    public var duplicates: Int { counts.withLock { $0.duplicates } }
    /// Messages that were not of the input's format or over a bound, logged and skipped.
    public var malformed: Int { refused(.malformed) }
    /// Messages of the format that carried no reading (Tasmota's telemetry of other sensors), or on a topic outside the filter.
    public var ignored: Int { counts.withLock { $0.ignored } }
    /// Messages a stop that could not wait kept from being routed, without a persistent session to send them again (see `MQTTInput.run(into:)`).
    public var lost: Int { counts.withLock { $0.lost } }
    /// Every message not routed for `reason`.
    func refused(_ reason: InputRefusal) -> Int { counts.withLock { $0.refused[reason] ?? 0 } }
    /// Warning lines written about refused messages (at most one per reason and minute).
    var warnings: Int { counts.withLock { $0.warnings } }

    func countReceived() { counts.withLock { $0.received += 1 } }
    func countDuplicate() { counts.withLock { $0.duplicates += 1 } }
    func countIgnored() { counts.withLock { $0.ignored += 1 } }
    func countWarning() { counts.withLock { $0.warnings += 1 } }
    func countLost(_ count: Int) { counts.withLock { $0.lost += count } }
    /// Counts a refused message and returns how many were refused for `reason`.
    func countRefused(_ reason: InputRefusal) -> Int {
        counts.withLock { counts in
            counts.refused[reason, default: 0] += 1
            return counts.refused[reason] ?? 0
        }
    }

    /// The counts by name, for `status` and the metrics: `received`, `duplicates`, `ignored`,
    /// `malformed`, `lost`, and `refused_<reason>` for each other reason.
    var all: [InputReport.Count] {
        let counts = counts.withLock { $0 }
        return [
            InputReport.Count("received", counts.received), InputReport.Count("duplicates", counts.duplicates),
            InputReport.Count("malformed", counts.refused[.malformed] ?? 0), InputReport.Count("ignored", counts.ignored),
            InputReport.Count("lost", counts.lost),
        ] + InputRefusal.allCases.filter { $0 != .malformed }.map { InputReport.Count("refused_\($0.rawValue)", counts.refused[$0] ?? 0) }
    }

    /// The counts as log fields (the refusal reasons that happened).
    var fields: JSONObject {
        var fields = JSONObject()
        for count in all where count.value > 0 || !count.name.hasPrefix("refused_") { fields[count.name] = .int(Int64(count.value)) }
        return fields
    }
}
