import Synchronization
import TagCore

/// Where the router tells a reader how a tap ended: whatever shows feedback
/// for a reader (its LEDs and buzzer, the host's sound) registers a sink under
/// its name, and the router posts the outcome moment for that reader to every
/// one of them. A sink must return at once (it queues): neither side ever
/// waits on the other, and a post for a reader without a sink is dropped.
/// Each daemon has one, handed to its plugins (`PluginContext.feedback`) and its readers.
public final class FeedbackBoard: Sendable {
    private let sinks = Mutex<[String: [(id: Int, sink: @Sendable (ReaderFeedback.Moment) -> Void)]]>([:])
    private let nextID = Atomic<Int>(0)

    public init() {}

    /// Makes `sink` receive the moments posted for `reader` (beside its other sinks); returns the id `unregister` takes.
    public func register(reader: String, _ sink: @escaping @Sendable (ReaderFeedback.Moment) -> Void) -> Int {
        let id = nextID.add(1, ordering: .relaxed).newValue
        sinks.withLock { $0[reader, default: []].append((id, sink)) }
        return id
    }

    /// Removes the sink `id` registered for `reader`.
    public func unregister(reader: String, id: Int) {
        sinks.withLock { sinks in
            sinks[reader]?.removeAll { $0.id == id }
            if sinks[reader]?.isEmpty == true { sinks[reader] = nil }
        }
    }

    /// Hands `moment` to each of `reader`'s sinks.
    public func post(_ moment: ReaderFeedback.Moment, reader: String) {
        let targets = sinks.withLock { $0[reader]?.map(\.sink) ?? [] }
        for sink in targets { sink(moment) }
    }
}
