import Synchronization

/// Where the router tells a reader how a tap ended: a reader that can show
/// feedback registers a sink under its name, and the router posts the outcome
/// moment for that reader. A sink must return at once (it queues): neither side
/// ever waits on the other, and a post for a reader without a sink is dropped.
public final class FeedbackBoard: Sendable {
    /// The board of this process: the daemon's router and readers meet here.
    public static let shared = FeedbackBoard()

    private let sinks = Mutex<[String: (id: Int, sink: @Sendable (ReaderFeedback.Moment) -> Void)]>([:])
    private let nextID = Atomic<Int>(0)

    public init() {}

    /// Makes `sink` receive the moments posted for `reader`; returns the id `unregister` takes.
    public func register(reader: String, _ sink: @escaping @Sendable (ReaderFeedback.Moment) -> Void) -> Int {
        let id = nextID.add(1, ordering: .relaxed).newValue
        sinks.withLock { $0[reader] = (id, sink) }
        return id
    }

    /// Removes `reader`'s sink if it is still the one `id` registered.
    public func unregister(reader: String, id: Int) {
        sinks.withLock { sinks in
            if sinks[reader]?.id == id { sinks[reader] = nil }
        }
    }

    /// Hands `moment` to `reader`'s sink, if it has one.
    public func post(_ moment: ReaderFeedback.Moment, reader: String) {
        sinks.withLock { $0[reader]?.sink }?(moment)
    }
}
