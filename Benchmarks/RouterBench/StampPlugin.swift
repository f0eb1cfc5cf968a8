import Synchronization
import TagRouter

/// A bench-only action that reports when it was reached: the event's `id`
/// carries the instant it was sent (nanoseconds on `Clock.now`), so the action
/// knows how long the event took through the router.
struct StampPlugin: ActionPlugin {
    static let name = "stamp"
    static let actionSpec = OptionSpec("record the latency of each event", [])

    /// Where stamps go; one consumer (the bench).
    static let arrivals = AsyncStream<Duration>.makeStream()

    init(section: ConfigValue, context: PluginContext) throws(ConfigErrors) {}

    func makeAction(_ options: ConfigValue, route: String) throws(ConfigErrors) -> any Action { StampAction() }
}

struct StampAction: Action {
    func perform(_ delivery: Delivery) async throws(ActionError) {
        StampPlugin.arrivals.continuation.yield(Clock.elapsed(since: delivery.event.id))
    }
}

/// A monotonic clock whose instants fit in an event id.
enum Clock {
    static let origin = ContinuousClock.now

    static var nowID: String {
        let elapsed = (ContinuousClock.now - origin).components
        return String(elapsed.seconds * 1_000_000_000 + elapsed.attoseconds / 1_000_000_000)
    }

    static func elapsed(since id: String) -> Duration {
        (ContinuousClock.now - origin) - .nanoseconds(Int64(id) ?? 0)
    }
}
