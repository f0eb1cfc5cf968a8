import FoundationEssentials
import Lifecycle
import Synchronization
import TagCore
import TagRuntime

/// The one place the running daemon reports to: the routing loop (each event
/// and the routes it matched), the action workers (each delivery's result),
/// and through the running router the readers' and plugins' live state.
/// `status` is a snapshot for `tagrouter status` and the metrics; `watch`
/// streams every event with its outcome (`tagrouter events`, the page).
///
/// Counts live across reloads, keyed by reader name, route name and action id.
/// The routing loop pays one lock per event and the workers one per result;
/// records for watchers are built only while someone watches.
public final class DaemonObserver: Sendable {
    private struct State {
        var configFile = ""
        var configLoaded = Date()
        var configRejected: DaemonStatus.Rejection?
        var readers: [ReaderStatus] = []
        var readerIndex: [String: Int] = [:]
        var routes: [DaemonStatus.RouteStatus] = []
        var routeIndex: [String: Int] = [:]
        var actions: [ActionStatus] = []
        var actionIndex: [String: Int] = [:]
        var eventCounts: [String: [String: Int]] = [:]
        var router: Router?
        var watchers: [Int: @Sendable (ObservedRecord) -> Void] = [:]
        var nextWatcher = 0
    }

    public let started: Date
    private let eventBuffer: EventBuffer?
    /// False when the config's readers are not run (`run --events-from`): none is listed.
    private let runsReaders: Bool
    private let state = Mutex(State())
    private let watching = Atomic<Int>(0)
    private let firstRouter = Latch()

    /// `eventBuffer`: the daemon's buffer, for its depth and drops in `status`. `runsReaders`: false when the
    /// daemon does not run the config's readers (`--events-from`); listed, they stayed `starting` (degraded) for ever.
    public init(eventBuffer: EventBuffer? = nil, started: Date = Date(), runsReaders: Bool = true) {
        self.eventBuffer = eventBuffer
        self.started = started
        self.runsReaders = runsReaders
    }

    /// A config was loaded (at start and on each reload): its readers, routes
    /// and actions are listed from now on; those kept by name keep their counts.
    public func configured(_ config: RouterConfig, at time: Date = Date()) {
        state.withLock { state in
            state.configFile = config.file
            state.configLoaded = time
            state.configRejected = nil
            let oldReaders = state.readers
            state.readers = (runsReaders ? config.readers : []).map { reader in
                oldReaders.first { $0.name == reader.name && $0.device == reader.device } ?? ReaderStatus(reader, since: time)
            }
            state.readerIndex = Dictionary(state.readers.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { first, _ in first })
            let oldRoutes = state.routes
            state.routes = config.routes.map { route in
                oldRoutes.first { $0.name == route.name } ?? DaemonStatus.RouteStatus(name: route.name, matches: 0)
            }
            state.routeIndex = Dictionary(state.routes.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { first, _ in first })
            let oldActions = state.actions
            state.actions = config.actions.map { action in
                oldActions.first { $0.id == action.id && $0.plugin == action.plugin } ?? ActionStatus(action)
            }
            state.actionIndex = Dictionary(state.actions.enumerated().map { ($1.id, $0) }, uniquingKeysWith: { first, _ in first })
        }
    }

    /// A reload found the file on disk broken (`problems`, at least one): the running
    /// config stays, and `status` says so until a config loads.
    public func rejected(_ problems: ConfigErrors) {
        guard let first = problems.sorted.first(where: { !$0.isWarning }) else { return }
        state.withLock { $0.configRejected = DaemonStatus.Rejection(at: first.mark.description, problem: first.description) }
    }

    /// The router now routing: its queues, spools and plugins are the live part of `status`.
    func attach(_ router: Router) {
        state.withLock { $0.router = router }
        firstRouter.open()
    }

    /// The config the running router routes with; nil before the first.
    var routingConfig: RouterConfig? { state.withLock { $0.router?.config } }

    /// Returns once the first router routes (the config is loaded and `status` lists it), or when cancelled.
    public func routing() async { await firstRouter.wait() }

    /// The routing loop took `event` and it matched `routes` (a tap's line is logged here);
    /// `verdicts` explains a miss (called only while watched).
    func routed(_ event: TagEvent, routes: [String], verdicts: () -> [RouteExplanation]) {
        state.withLock { state in
            state.eventCounts[event.reader, default: [:]][event.kind.rawValue, default: 0] += 1
            if let index = state.readerIndex[event.reader] { state.readers[index].observe(event) }
            for route in routes {
                if let index = state.routeIndex[route] { state.routes[index].matches += 1 }
            }
        }
        TapLine.log(event, routes: routes)
        guard watching.load(ordering: .relaxed) > 0 else { return }
        publish(.routed(event, routes: routes, verdicts: routes.isEmpty ? verdicts() : []))
    }

    /// An action ended one delivery of `event` with `result`.
    func ended(_ action: ConfiguredAction, _ result: ActionResult, event: TagEvent, reason: String? = nil) {
        let time = Date()
        state.withLock { state in
            if let index = state.actionIndex[action.id] {
                state.actions[index].observe(result, reason: reason, at: time, eventTime: event.time)
            }
            if event.kind == .tagArrived, result.isFinal, event.node == nil, let index = state.readerIndex[event.reader] {
                state.readers[index].outcome(of: action.id, after: time.timeIntervalSince(event.time))
            }
        }
        guard watching.load(ordering: .relaxed) > 0 else { return }
        publish(.action(ObservedRecord.ActionOutcome(
            eventID: event.id, reader: event.reader, kind: event.kind, route: action.route, action: action.id,
            result: result, time: time, latency: time.timeIntervalSince(event.time), reason: reason)))
    }

    /// Calls `receive` with every record from now on, on the daemon's tasks
    /// and threads: it must return at once (queue the record, do not write it).
    /// Returns the id `unwatch` takes.
    public func watch(_ receive: @escaping @Sendable (ObservedRecord) -> Void) -> Int {
        defer { watching.add(1, ordering: .relaxed) }
        return state.withLock { state in
            defer { state.nextWatcher += 1 }
            state.watchers[state.nextWatcher] = receive
            return state.nextWatcher
        }
    }

    public func unwatch(_ id: Int) {
        let removed = state.withLock { $0.watchers.removeValue(forKey: id) }
        if removed != nil { watching.subtract(1, ordering: .relaxed) }
    }

    private func publish(_ record: ObservedRecord) {
        for receive in state.withLock({ Array($0.watchers.values) }) { receive(record) }
    }

    /// The daemon as of now.
    public var status: DaemonStatus {
        let (taken, router) = state.withLock { state in
            (DaemonStatus(
                started: started, configFile: state.configFile, configLoaded: state.configLoaded, readers: state.readers,
                routes: state.routes, actions: state.actions, connections: [], eventCounts: state.eventCounts,
                eventBufferCapacity: eventBuffer?.capacity ?? 0, eventBufferDepth: eventBuffer?.count ?? 0,
                eventBufferDropped: eventBuffer?.dropped ?? 0, configRejected: state.configRejected), state.router)
        }
        var snapshot = taken
        if let router {
            let depths = router.depths
            for index in snapshot.actions.indices {
                guard let depth = depths[snapshot.actions[index].id] else { continue }
                snapshot.actions[index].queueDepth = depth.queue
                snapshot.actions[index].spoolDepth = depth.spool
            }
            snapshot.connections = router.config.plugins.compactMap(\.connectionReport)
            snapshot.inputs = router.config.inputs.compactMap { input in
                let counts = input.source.counts
                return counts.isEmpty ? nil : InputReport(path: input.path, kind: input.kind, counts: counts)
            }
        }
        return snapshot
    }
}
