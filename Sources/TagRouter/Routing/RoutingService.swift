import Synchronization
import TagCore

/// The router as the daemon's service across reloads: one `Router` at a time
/// on the event buffer. `reload(to:)` stops the running router from taking
/// events — they wait in the buffer — lets its action queues drain (within
/// its `shutdown_timeout`), then starts a router for the new config on the
/// same buffer. `run` returns once the buffer has ended and been drained.
public final class RoutingService: Service {
    private struct State {
        var current: Router?
        var pending: RouterConfig?
    }

    private let initial: RouterConfig
    private let events: EventBuffer
    private let dryRun: Bool
    private let observer: DaemonObserver?
    private let state = Mutex(State())

    /// `observer` hears of each config as its router starts, and of everything routed and delivered.
    public init(config: RouterConfig, events: EventBuffer, dryRun: Bool = false, observer: DaemonObserver? = nil) {
        initial = config
        self.events = events
        self.dryRun = dryRun
        self.observer = observer
    }

    /// Switches to `config`: events taken from the buffer from now on go to its router.
    public func reload(to config: RouterConfig) {
        let current = state.withLock { state in
            state.pending = config
            return state.current
        }
        current?.stop()
    }

    /// The running router's counters per action id.
    public var counters: [String: ActionCounters] { state.withLock { $0.current }?.counters ?? [:] }

    public func run() async throws {
        var config = initial
        while true {
            observer?.configured(config)
            let router = Router(config: config, dryRun: dryRun, observer: observer)
            let reloadWaiting = state.withLock { state in
                state.current = router
                return state.pending != nil
            }
            if reloadWaiting { router.stop() }
            try await router.run(events)
            let next = state.withLock { state in
                defer { state.pending = nil }
                return state.pending
            }
            guard let next, !Task.isCancelled else { return }
            config = next
        }
    }
}
