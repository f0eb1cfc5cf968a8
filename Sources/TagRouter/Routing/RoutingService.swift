import Lifecycle
import OrderedJSON
import Synchronization
import SystemKit
import TagCore
import TagRuntime

/// The router as the daemon's service across reloads: one `Router` at a time
/// on the event buffer. `reload(to:)` stops the running router from taking
/// events — they wait in the buffer — lets its action queues drain (within
/// its `shutdown_timeout`), then starts a router for the new config on the
/// same buffer.
///
/// It owns the plugins' services (`PluginServices`): a plugin instance the new
/// config kept (`ConfigLoader.keeping`) keeps running — the MQTT connection
/// stays up — and one it dropped is stopped between the two routers. An
/// action's spool is its id's (`route.index.plugin`): the next router's action
/// with the same id delivers what waits there; spooled events of an id the
/// config lacks are reported and wait on disk until it returns.
/// `run` returns once the buffer has ended and been drained, after which the
/// plugins' services stop (MQTT says `offline` last).
public final class RoutingService: Service {
    private struct State {
        var current: Router?
        var pending: RouterConfig?
        var latest: RouterConfig
    }

    private let initial: RouterConfig
    /// The router of the initial config when the caller built it (`Router.whileRunning`); nil: built by `run`.
    private let first: Router?
    private let events: EventBuffer
    private let dryRun: Bool
    private let observer: DaemonObserver?
    private let state: Mutex<State>

    /// `observer` hears of each config as its router starts, and of everything routed and delivered.
    public convenience init(config: RouterConfig, events: EventBuffer, dryRun: Bool = false, observer: DaemonObserver? = nil) {
        self.init(config: config, first: nil, events: events, dryRun: dryRun, observer: observer)
    }

    /// Routing that starts with `router` (its config, dry run and observer): the router a test or tool holds
    /// is the one that routes, so its counters are the ones it reads.
    convenience init(starting router: Router, events: EventBuffer) {
        self.init(config: router.config, first: router, events: events, dryRun: router.dryRun, observer: router.observer)
    }

    private init(config: RouterConfig, first: Router?, events: EventBuffer, dryRun: Bool, observer: DaemonObserver?) {
        initial = config
        self.first = first
        self.events = events
        self.dryRun = dryRun
        self.observer = observer
        state = Mutex(State(latest: config))
    }

    /// Switches to `config`: events taken from the buffer from now on go to its router.
    public func reload(to config: RouterConfig) {
        let current = state.withLock { state in
            state.pending = config
            state.latest = config
            return state.current
        }
        current?.stop()
    }

    /// The config of the last reload (or the first): the one whose plugins the next reload may keep.
    public var latestConfig: RouterConfig { state.withLock { $0.latest } }

    /// The running router's counters per action id.
    public var counters: [String: ActionCounters] { state.withLock { $0.current }?.counters ?? [:] }

    public func run() async throws {
        try await withThrowingTaskGroup(of: PluginServices.Ended.self) { group in
            var services = PluginServices()
            var config = initial
            var built = first
            while true {
                try await services.switchTo(config.loadedPlugins, in: &group)
                observer?.configured(config)
                if !dryRun { Self.reportSpoolsWithoutAction(config) }
                let router = built ?? Router(config: config, dryRun: dryRun, observer: observer)
                built = nil
                let reloadWaiting = state.withLock { state in
                    state.current = router
                    return state.pending != nil
                }
                if reloadWaiting { router.stop() }
                group.addTask {
                    await router.route(self.events)
                    return .router
                }
                try await services.waitForRouter(in: &group)
                let next = state.withLock { state in
                    defer { state.pending = nil }
                    return state.pending
                }
                guard let next, !Task.isCancelled else { break }
                Self.reportSwitch(from: config, to: next)
                config = next
            }
            try await services.stopAll(in: &group)
        }
    }

    /// The old router has drained; the new config's takes over: which plugins
    /// it keeps running (their connections stayed up) and which it starts anew.
    private static func reportSwitch(from old: RouterConfig, to new: RouterConfig) {
        let running = Set(old.loadedPlugins.map(ObjectIdentifier.init))
        let kept = new.loadedPlugins.filter { running.contains(ObjectIdentifier($0)) }.map { JSONValue.string($0.name) }
        let started = new.loadedPlugins.filter { !running.contains(ObjectIdentifier($0)) }.map { JSONValue.string($0.name) }
        Log.info("the reloaded config routes from now on", JSONObject(["plugins_kept": .array(kept), "plugins_started": .array(started)]))
    }

    /// Spooled events whose action this config does not have (its route was
    /// renamed, moved or removed, or its `spool` turned off) are not delivered
    /// and not deleted: they wait on disk until an action with that id
    /// returns. One warning per such spool says so and where.
    private static func reportSpoolsWithoutAction(_ config: RouterConfig) {
        let spooling = Set(config.actions.filter(\.policy.spool).map(\.id))
        for (id, count) in Spool.waiting(under: config.stateDirectory) where !spooling.contains(id) {
            Log.warning(
                "spooled events wait for an action this config does not have; they are delivered when an action with that id (route name, index, plugin) returns",
                JSONObject(["action": .string(id), "directory": .string(Spool.directory(of: id, under: config.stateDirectory)), "count": .int(Int64(count))]))
        }
    }
}
