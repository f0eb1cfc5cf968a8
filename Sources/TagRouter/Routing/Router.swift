import Lifecycle
import OrderedJSON
import SecureTags
import SystemKit
import TagCore
import TagRuntime

/// Routes events to actions: tries the compiled routes in order (the first
/// match wins unless it says `continue: true`) and hands each matching action
/// the event through that action's own bounded queue, so a slow action holds
/// back no other.
///
/// It is the router of one config; `RoutingService` — the one routing path,
/// the daemon's and `whileRunning`'s — runs one router after another across
/// reloads (`route(_:)`) and owns the plugins' services, so a plugin kept by a
/// reload keeps running.
public final class Router: Sendable {
    public let config: RouterConfig
    private let workers: [[ActionWorker]]
    /// The routes' matchers on their own: the hot loop touches nothing else of a route.
    private let matchers: [Matcher]
    private let continues: [Bool]
    /// Which routes an event can match at all: most events need not try most routes.
    private let index: RouteIndex
    private let stopping = Latch()
    let observer: DaemonObserver?
    let dryRun: Bool

    /// `dryRun`: actions only describe what they would do (logged), nothing is spooled.
    /// `observer`: told about every event routed and every delivery's result.
    public init(config: RouterConfig, dryRun: Bool = false, observer: DaemonObserver? = nil) {
        self.config = config
        self.observer = observer
        self.dryRun = dryRun
        matchers = config.routes.map(\.matcher)
        continues = config.routes.map(\.continues)
        index = RouteIndex(matchers)
        let stateDirectory = dryRun ? nil : Self.spoolDirectory(config)
        workers = config.routes.map { route in
            route.actions.map { ActionWorker($0, stateDirectory: stateDirectory, dryRun: dryRun, observer: observer) }
        }
    }

    /// `state_dir` when the spools of the actions with `spool: true` can be kept
    /// there; otherwise nil, and one warning that says so and why.
    private static func spoolDirectory(_ config: RouterConfig) -> String? {
        let spooled = config.actions.filter(\.policy.spool)
        guard !spooled.isEmpty else { return config.stateDirectory }
        do {
            try Spool.checkWritable(stateDirectory: config.stateDirectory)
            return config.stateDirectory
        } catch {
            Log.warning(
                "state_dir cannot be written safely; spooling is off: events of actions with spool: true are delivered or fail, none is kept on disk or survives a crash",
                JSONObject([
                    "state_dir": .string(config.stateDirectory), "reason": .string(error.description),
                    "actions": .array(spooled.map { .string($0.id) }),
                ]))
            return nil
        }
    }

    /// Routes `events` until the buffer ends or `stop()`, and returns once the
    /// action queues drained (or `shutdown_timeout` passed); the plugins'
    /// services must run meanwhile.
    func route(_ events: EventBuffer) async {
        observer?.attach(self)
        await deliver(events)
    }

    /// Stops taking events from the buffer (a reload: the next router takes
    /// over): from its return no event reaches this router, they wait for the
    /// next one; `route` returns once the queues drained.
    public func stop() { stopping.open() }

    private enum Part: Sendable { case worker, routing, stopping, deadline }

    /// The workers, the routing loop and the drain deadline, in one group.
    private func deliver(_ events: EventBuffer) async {
        let all = Array(workers.joined())
        let (timeout, stopping) = (config.shutdownTimeout, stopping)
        await withTaskGroup(of: Part.self) { group in
            for worker in all {
                group.addTask {
                    await worker.run()
                    return .worker
                }
            }
            group.addTask {
                while let entry = await events.next(until: stopping) {
                    await self.dispatch(entry.event, waitForRoom: entry.canWait, acceptance: entry.acceptance)
                }
                return .routing
            }
            group.addTask {
                await withTaskGroup(of: Void.self) { either in
                    either.addTask {
                        await stopping.wait()
                        events.wakeStopped()
                    }
                    either.addTask { await events.finished() }
                    await either.next()
                    either.cancelAll()
                }
                return .stopping
            }
            var (routing, running) = (true, all.count)
            while let part = await group.next() {
                switch part {
                case .routing:
                    routing = false
                    for worker in all { worker.finish() }
                case .stopping:
                    _ = group.addTaskUnlessCancelled {
                        try? await Task.sleep(for: timeout)
                        return .deadline
                    }
                case .worker:
                    running -= 1
                case .deadline where routing || running > 0:
                    Log.warning("queues did not drain in time; spooling the rest", JSONObject(["timeout_ms": .int(Int64(timeout.seconds * 1000))]))
                    group.cancelAll()
                case .deadline:
                    break
                }
                if !routing && running == 0 { group.cancelAll() }
            }
        }
    }

    /// Matches `event` and queues it for every action of every matching route;
    /// returns the names of the routes that matched. `waitForRoom`: a full
    /// action queue is waited on (an event from a source that can wait) instead
    /// of dropping its oldest event. `acceptance` is released once every spooled
    /// action the event matched has written it ahead (at once when none did).
    @discardableResult
    func dispatch(_ event: TagEvent, waitForRoom: Bool, acceptance: Acceptance? = nil) async -> [String] {
        defer { acceptance?.release() }
        // The SUN counter is written ahead here, once per arrival; explain only previews it.
        let event = config.tags.resolve(OriginalityCheck.checked(config.sun?.check(event) ?? event))
        for plugin in config.plugins { plugin.observe(event) }
        let matching = matchingRoutes(event)
        let routes = config.routes
        let matched = matching.map { routes[$0].name }
        // Told before the actions are queued, so a watcher (and the log) sees the event before its outcomes.
        observer?.routed(event, routes: matched) { explain(resolved: event) }
        let routed = RoutedEvent(event)
        for index in matching {
            let delivery = Delivery(routed, route: routes[index].name)
            for worker in workers[index] { await worker.enqueue(delivery, waitForRoom: waitForRoom, acceptance: acceptance) }
        }
        return matched
    }

    /// The indices of the routes `event` goes to: the first that matches, and
    /// more while the matching ones say `continue: true`. Only the routes the
    /// index names are tried, in file order. Synchronous, so the compiler keeps
    /// the loop free of reference counting.
    func matchingRoutes(_ event: TagEvent) -> [Int] {
        var matching: [Int] = []
        let candidates = index.candidates(for: event)
        matchers.withUnsafeBufferPointer { matchers in
            for index in candidates where matchers[index].matches(event) {
                matching.append(index)
                if !continues[index] { break }
            }
        }
        return matching
    }

    /// Every route's verdict on `event`, and what the actions of those that match would do.
    /// The SUN check is previewed: nothing is counted.
    public func explain(_ event: TagEvent) -> [RouteExplanation] {
        explain(resolved: config.tags.resolve(OriginalityCheck.checked(config.sun?.preview(event) ?? event)))
    }

    /// `explain` of an event already checked and named (as `dispatch` has it).
    private func explain(resolved event: TagEvent) -> [RouteExplanation] {
        var stopped = false
        return config.routes.map { route in
            let conditions = route.matcher.explain(event)
            let matched = !stopped && conditions.allSatisfy(\.passed)
            let delivery = Delivery(event: event, route: route.name)
            let explanation = RouteExplanation(
                route: route.name, tried: !stopped, matched: matched, conditions: conditions,
                actions: matched ? route.actions.map { "\($0.plugin): \($0.action.describe(delivery))" } : [])
            if matched && !route.continues { stopped = true }
            return explanation
        }
    }

    /// Deliveries waiting per action id: in memory (`queue`) and on disk (`spool`).
    public var depths: [String: (queue: Int, spool: Int)] {
        Dictionary(workers.joined().map { ($0.configured.id, ($0.pending, $0.spoolDepth)) }, uniquingKeysWith: { first, _ in first })
    }

    /// Deliveries held in memory per action id (the rest wait on disk).
    var heldInMemory: [String: Int] {
        Dictionary(workers.joined().map { ($0.configured.id, $0.heldInMemory) }, uniquingKeysWith: { first, _ in first })
    }

    /// Counters per action id (`route.index.plugin`).
    public var counters: [String: ActionCounters] {
        Dictionary(workers.joined().map { ($0.configured.id, $0.snapshot) }, uniquingKeysWith: { first, _ in first })
    }
}

extension Router {
    /// The daemon's routing in a scope, for tests and tools: runs this router as
    /// `RoutingService` runs the daemon's (its plugins' services, one task per
    /// action, the routing loop, the drain deadline) on an event buffer of its own
    /// (`event_buffer` events) while `body` feeds it, then finishes the buffer and
    /// returns once the router has delivered what it holds (within
    /// `shutdown_timeout`) and the plugins' services stopped.
    public func whileRunning<Result: Sendable>(_ body: (EventBuffer) async throws -> Result) async throws -> Result {
        let events = EventBuffer(capacity: config.eventBuffer)
        let routing = RoutingService(starting: self, events: events)
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await routing.run() }
            defer { events.finish() }
            let result = try await body(events)
            events.finish()
            try await group.waitForAll()
            return result
        }
    }
}
