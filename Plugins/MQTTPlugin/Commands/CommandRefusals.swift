import OrderedJSON
import Synchronization
import SystemKit

/// Write or feedback requests refused before they reached a reader, counted by reason and
/// logged at most once per `interval` per reason — the first at once, later
/// ones with how many were refused since the last line — so a flood of forged
/// or malformed requests cannot flood the log.
final class CommandRefusals: Sendable {
    /// Why a request was refused.
    enum Reason: String, Sendable, CaseIterable {
        /// No `token`, or not the configured one: nothing is answered.
        case unauthenticated
        /// Larger than `MQTTWriteCommands.maximumPayload`, or not a JSON object: nothing is answered.
        case malformed
        /// Authenticated, but the request is wrong (answered `bad_request`).
        case badRequest = "bad_request"
        /// Authenticated, but a request already waits on that reader (answered `busy`).
        case busy
    }

    private struct Tally {
        var total = 0
        var unlogged = 0
        var lastLogged: ContinuousClock.Instant?
    }

    /// Which requests: `write`, `feedback` (in the log line).
    let kind: String
    let interval: Duration
    private let tallies = Mutex<[Reason: Tally]>([:])

    init(_ kind: String, interval: Duration = .seconds(60)) {
        self.kind = kind
        self.interval = interval
    }

    /// Requests refused for `reason` since the daemon started.
    func count(_ reason: Reason) -> Int { tallies.withLock { $0[reason]?.total ?? 0 } }

    /// Counts one refusal and logs it unless a line for `reason` was written within `interval`.
    func refuse(_ reason: Reason, topic: String, error: String) {
        let now = ContinuousClock.now
        let suppressed = tallies.withLock { tallies -> Int? in
            var tally = tallies[reason] ?? Tally()
            tally.total += 1
            defer { tallies[reason] = tally }
            if let last = tally.lastLogged, now - last < interval {
                tally.unlogged += 1
                return nil
            }
            defer { tally.unlogged = 0 }
            tally.lastLogged = now
            return tally.unlogged
        }
        guard let suppressed else { return }
        var fields = JSONObject(["topic": .string(topic), "reason": .string(reason.rawValue), "error": .string(error)])
        if suppressed > 0 { fields["refused_unlogged"] = .int(Int64(suppressed)) }
        fields["refused_total"] = .int(Int64(count(reason)))
        Log.warning("MQTT \(kind) request refused (at most one line per \(interval.components.seconds) s per reason)", fields)
    }
}
