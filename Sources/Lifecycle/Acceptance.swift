import Synchronization

/// The way back from the router to a source that acknowledges its events
/// upstream (an MQTT input: the broker's PUBACK): `accepted` runs once the
/// router has taken charge of the event — routed it, and written it ahead to
/// the spool of every action with a spool that it matched — so the source
/// acknowledges only what survives a crash of the daemon.
///
/// A count of the parts still holding the event: it starts at one (the
/// router's own, released when the routing is done); each spooled action that
/// takes the event holds it once more and releases it when the event is on
/// disk — or when it knows it never will be (the spool failed, the event was
/// dropped), so a source is never kept waiting for ever. A source that drops
/// an event itself (a copy, a malformed message) releases the first hold.
public final class Acceptance: Sendable {
    private let holds = Mutex(1)
    private let accepted: @Sendable () -> Void

    public init(accepted: @escaping @Sendable () -> Void) { self.accepted = accepted }

    /// One more part has taken the event and must release it.
    public func hold() { holds.withLock { $0 += 1 } }

    /// One part is done with the event; the last one runs `accepted` (once).
    public func release() {
        let last = holds.withLock { holds -> Bool in
            holds -= 1
            return holds == 0
        }
        if last { accepted() }
    }
}
