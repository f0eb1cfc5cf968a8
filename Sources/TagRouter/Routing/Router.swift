import Synchronization
import TagCore

/// Routes events to actions: tries the compiled routes in order (the first
/// match wins unless it says `continue: true`) and hands each matching action
/// the event through that action's own queue, so `dispatch` never waits for an action.
public final class Router: Sendable {
    public let config: RouterConfig
    private let workers: [[ActionWorker]]
    private let tasks = Mutex<[Task<Void, Never>]>([])
    private let completion = WorkerCompletion()

    /// `dryRun`: actions only describe what they would do (logged), nothing is spooled.
    public init(config: RouterConfig, dryRun: Bool = false) {
        self.config = config
        workers = config.routes.map { route in
            route.actions.map { ActionWorker($0, stateDirectory: config.stateDirectory, dryRun: dryRun) }
        }
    }

    /// Starts the plugins, then one task per action (spooled events go first).
    public func start() async {
        for plugin in config.plugins { await plugin.start() }
        let completion = completion
        let started = workers.joined().map { worker in
            Task {
                await worker.run()
                completion.workerFinished()
            }
        }
        tasks.withLock { $0 = started }
    }

    /// Matches `event` and queues it for every action of every matching route;
    /// returns the names of the routes that matched.
    @discardableResult
    public func dispatch(_ event: TagEvent) -> [String] {
        let event = config.tags.resolve(event)
        for plugin in config.plugins { plugin.observe(event) }
        var matched: [String] = []
        let json = Lazy { event.json }
        let routes = config.routes
        for index in routes.indices where routes[index].matcher.matches(event) {
            let name = routes[index].name
            matched.append(name)
            let delivery = Delivery(event: event, route: name, eventJSON: json)
            for worker in workers[index] { worker.enqueue(delivery) }
            if !routes[index].continues { break }
        }
        if matched.isEmpty { Log.debug("no route matched", JSONObject(["event": .string(event.kind.rawValue), "event_id": .string(event.id)])) }
        return matched
    }

    /// Dispatches every event of `events` until the sequence ends.
    public func route(_ events: some AsyncSequence<TagEvent, Never>) async {
        for await event in events { dispatch(event) }
    }

    /// Every route's verdict on `event`, and what the actions of those that match would do.
    public func explain(_ event: TagEvent) -> [RouteExplanation] {
        let event = config.tags.resolve(event)
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

    /// Counters per action id (`route.index.plugin`).
    public var counters: [String: ActionCounters] {
        Dictionary(workers.joined().map { ($0.configured.id, $0.snapshot) }, uniquingKeysWith: { first, _ in first })
    }

    /// Stops taking events, lets the queues drain for up to `timeout`, then
    /// cancels what is still running (those events go to the spool), and stops the plugins.
    public func shutdown(timeout: Duration) async {
        for worker in workers.joined() { worker.finish() }
        let running = tasks.withLock { $0 }
        if await !completion.wait(for: running.count, timeout: timeout) {
            Log.warning("queues did not drain in time; spooling the rest", JSONObject(["timeout_ms": .int(Int64(timeout.seconds * 1000))]))
            for task in running { task.cancel() }
            if await !completion.wait(for: running.count, timeout: timeout) {
                let stuck = workers.joined().filter { $0.pending > 0 }.map { JSONValue.string($0.configured.id) }
                Log.error("actions did not stop when cancelled; their queued events are lost", JSONObject(["actions": .array(stuck)]))
            }
        }
        for plugin in config.plugins { await plugin.stop() }
    }
}

/// Counts finished worker tasks and lets `shutdown` wait for all of them with a
/// deadline, without awaiting the tasks themselves (which cannot time out).
private final class WorkerCompletion: Sendable {
    private struct State {
        var finished = 0
        var waiter: (id: Int, needed: Int, continuation: CheckedContinuation<Bool, Never>)?
        var nextID = 0
    }

    private let state = Mutex(State())

    func workerFinished() {
        let waiter = state.withLock { state -> CheckedContinuation<Bool, Never>? in
            state.finished += 1
            guard let waiter = state.waiter, state.finished >= waiter.needed else { return nil }
            state.waiter = nil
            return waiter.continuation
        }
        waiter?.resume(returning: true)
    }

    /// True when `count` workers have finished within `timeout`.
    func wait(for count: Int, timeout: Duration) async -> Bool {
        await withCheckedContinuation { continuation in
            let id = state.withLock { state -> Int? in
                guard state.finished < count else { return nil }
                state.nextID += 1
                state.waiter = (state.nextID, count, continuation)
                return state.nextID
            }
            guard let id else { return continuation.resume(returning: true) }
            Task { [self] in
                try? await Task.sleep(for: timeout)
                let expired = state.withLock { state -> CheckedContinuation<Bool, Never>? in
                    guard let waiter = state.waiter, waiter.id == id else { return nil }
                    state.waiter = nil
                    return waiter.continuation
                }
                expired?.resume(returning: false)
            }
        }
    }
}
