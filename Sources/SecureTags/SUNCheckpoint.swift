import SystemKit
import TagCore

/// The daemon's SUN check of each event before it is routed: a tag whose URI
/// carries a SUN message gets `tag.sun` — verified when the MAC matches under a
/// configured key, the signed UID is the one read, and the counter is above the
/// last one accepted for that UID (written ahead); else the reason it is not.
/// Events from a node over MQTT are checked the same way: a `sun` they carry
/// was never read.
public struct SUNCheckpoint: Sendable {
    public let verifier: SUNVerifier
    public let counters: SUNCounterStore

    public init(verifier: SUNVerifier, counters: SUNCounterStore) {
        self.verifier = verifier
        self.counters = counters
    }

    /// `event` with its `tag.sun`; unchanged unless it is a tag arrival whose URI carries a SUN message.
    /// A verified counter is written ahead before this returns.
    public func check(_ event: TagEvent) -> TagEvent { checked(event, counting: true) }

    /// What `check` would give `event`, without counting its counter (for `--explain` and `events`).
    public func preview(_ event: TagEvent) -> TagEvent { checked(event, counting: false) }

    private func checked(_ event: TagEvent, counting: Bool) -> TagEvent {
        guard event.kind == .tagArrived, let readUID = event.tag?.uid, let uri = event.uri, let result = verifier.verify(uri) else { return event }
        var checked = event
        checked.tag?.sun = {
            switch result {
            case .failure(let failure):
                return SUNCheck(uid: nil, counter: nil, failure: failure)
            case .success(let verified):
                let uid = TagUID(bytes: verified.uid)
                // A SUN URL copied onto another tag (or sent for another UID) proves nothing about the tag read.
                guard uid == readUID else { return SUNCheck(uid: uid.hex, counter: verified.counter, failure: .uidMismatch) }
                return SUNCheck(uid: uid.hex, counter: verified.counter, failure: freshness(uid.hex, verified.counter, counting: counting))
            }
        }()
        return checked
    }

    /// Nil when `counter` is above the last accepted for `uid` (when `counting`, it is accepted and
    /// written ahead); else why not: a replay, or a counter that could not be written ahead.
    private func freshness(_ uid: String, _ counter: Int, counting: Bool) -> SUNCheck.Failure? {
        guard counting else {
            guard let last = counters.lastCounter(uid: uid) else { return nil }
            return counter > last ? nil : .replayedCounter
        }
        do {
            return try counters.accept(uid: uid, counter: counter) ? nil : .replayedCounter
        } catch {
            Log.error("SUN tap not counted: \(error)")
            return .counterNotStored
        }
    }
}
