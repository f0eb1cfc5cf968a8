import Lifecycle
import OrderedJSON
import Synchronization
import SystemKit
import TagCore

/// The daemon's one bounded buffer between the event sources and the router,
/// in two lanes of `event_buffer` events (a `BoundedQueue`). A live source (a
/// local reader) never waits: when its lane is full its oldest event is
/// dropped, counted and logged. A source that can wait (an events file, an
/// MQTT input) is slowed down instead: `send` waits for room in its own lane.
/// The router takes live events first, so a local tap is never queued behind
/// a flooded input, and a tap never drops an event an input sent.
public final class EventBuffer: Sendable {
    /// An event with what its source can do when there is no room for it.
    public struct Entry: Sendable {
        public let event: TagEvent
        /// True for a source that can wait (it also waits for room in full action queues).
        public let canWait: Bool
        /// Released by the router once the event is routed and written ahead (see `Acceptance`).
        public let acceptance: Acceptance?
    }

    private let queue: BoundedQueue<Entry>
    private let droppedCount = Atomic<Int>(0)
    private let finishedLatch = Latch()

    public init(capacity: Int) { queue = BoundedQueue(capacity: capacity) }

    public var capacity: Int { queue.capacity }

    /// Events waiting for the router.
    public var count: Int { queue.count }

    /// Events dropped because the buffer was full.
    public var dropped: Int { droppedCount.load(ordering: .relaxed) }

    /// Adds a live source's event without waiting, ahead of what waiting sources
    /// sent; a full live lane drops its oldest.
    public func offer(_ event: TagEvent) {
        guard let old = queue.push(Entry(event: event, canWait: false, acceptance: nil)) else { return }
        droppedCount.add(1, ordering: .relaxed)
        let reason = old.event.id == event.id ? "the daemon is stopping" : "event buffer full (\(capacity)); oldest event dropped"
        Log.warning("event dropped", JSONObject(["event_id": .string(old.event.id), "reader": .string(old.event.reader), "reason": .string(reason)]))
    }

    /// Adds an event from a source that can wait, waiting for room. False when it
    /// was not added: the buffer is finished, or the caller's task was cancelled.
    /// `acceptance`: released by the router once it has taken charge of the event.
    public func send(_ event: TagEvent, acceptance: Acceptance? = nil) async -> Bool {
        await queue.send(Entry(event: event, canWait: true, acceptance: acceptance))
    }

    /// `send` for a source that reads on a thread of its own (an events file), for
    /// the events it has at hand, in order: blocks the thread until there is room
    /// for them all (the router is woken once for those that fit at once). False
    /// when the buffer is finished.
    public func sendBlocking(_ events: [TagEvent]) -> Bool {
        queue.sendBlocking(contentsOf: events.map { Entry(event: $0, canWait: true, acceptance: nil) })
    }

    /// The next event for the router; nil once finished and empty, when the
    /// caller is cancelled, or once `until` is open (a reload hands over: from
    /// the moment it opens, every event waits for the next router).
    public func next(until stop: Latch? = nil) async -> Entry? { await queue.next(until: stop) }

    /// Ends the wait of a router whose `until` latch is open, without losing events.
    public func wakeStopped() { queue.wakeStopped() }

    /// No more events (the sources have stopped); what is held is still routed.
    public func finish() {
        queue.finish()
        finishedLatch.open()
    }

    /// Returns once `finish` was called (or the caller is cancelled).
    public func finished() async { await finishedLatch.wait() }
}
