import Synchronization
import TagCore

/// Runs one configured action: its bounded queue, its task, retries with
/// backoff, and its spool. Events for the same action are delivered in order.
final class ActionWorker: Sendable {
    private enum Outcome {
        case delivered, failed
        /// Retries used up, with the wait the target asked for and why; `quiet` when
        /// the target is known down (already reported).
        case gaveUp(Duration?, reason: String, quiet: Bool)
    }

    let configured: ConfiguredAction
    private let queue: BoundedQueue<Delivery>
    private let spool: Spool?
    private let dryRun: Bool
    private let counters = Mutex(ActionCounters())
    private let observer: DaemonObserver?
    private let spooledCount = Atomic<Int>(0)

    init(_ configured: ConfiguredAction, stateDirectory: String?, dryRun: Bool, observer: DaemonObserver? = nil) {
        self.configured = configured
        self.observer = observer
        self.queue = BoundedQueue(capacity: configured.policy.queueCapacity)
        self.spool = configured.policy.spool && !dryRun ? stateDirectory.map { Spool(directory: $0 + "/spool/" + configured.id) } : nil
        self.dryRun = dryRun
    }

    var snapshot: ActionCounters { counters.withLock { $0 } }

    /// Deliveries waiting in memory.
    var pending: Int { queue.count }

    /// Deliveries waiting in the spool.
    var spoolDepth: Int { spooledCount.load(ordering: .relaxed) }

    /// Counts one result, and tells the observer.
    private func count(_ result: ActionResult, _ event: TagEvent, reason: String? = nil) {
        counters.withLock { counters in
            switch result {
            case .delivered: counters.delivered += 1
            case .failed: counters.failed += 1
            case .dropped: counters.dropped += 1
            case .spooled: counters.spooled += 1
            case .retried: counters.retried += 1
            }
        }
        observer?.ended(configured, result, event: event, reason: reason)
    }

    private var fields: JSONObject { JSONObject(["action": .string(configured.id)]) }

    private func fields(_ event: TagEvent, _ extra: KeyValuePairs<String, JSONValue> = [:]) -> JSONObject {
        var object = fields
        object["event_id"] = .string(event.id)
        for (key, value) in extra { object[key] = value }
        return object
    }

    /// Queues a delivery. A full queue drops its oldest, unless `waitForRoom`:
    /// then the caller waits for room (and drops only when cancelled meanwhile).
    func enqueue(_ delivery: Delivery, waitForRoom: Bool) async {
        if waitForRoom, await queue.send(delivery) { return }
        guard let dropped = queue.push(delivery) else { return }
        let reason = dropped.event.id == delivery.event.id ? "router is shutting down" : "queue full (\(queue.capacity)); oldest event dropped"
        count(.dropped, dropped.event, reason: reason)
        Log.warning("event dropped", fields(dropped.event, ["reason": .string(reason)]))
    }

    /// No more deliveries; `run` returns once the queue is empty (or spooled).
    func finish() { queue.finish() }

    /// The worker's loop: spooled deliveries first, then the queue, until finished.
    /// When cancelled, what the queue still holds is spooled (or, without a spool, logged as lost).
    func run() async {
        await deliverAll()
        guard Task.isCancelled else { return }
        let left = queue.drain()
        guard !left.isEmpty else { return }
        if let spool {
            var spooled = spool.entries()
            var lastSequence = spooled.last?.sequence
            for delivery in left { save(delivery, reason: "stopped before delivery", to: spool, &spooled, &lastSequence) }
            spooledCount.store(spooled.count, ordering: .relaxed)
        } else {
            for delivery in left { count(.failed, delivery.event, reason: "stopped before delivery; no spool") }
            Log.error("stopped before delivery; events lost (no spool)", fields.merging(JSONObject(["count": .int(Int64(left.count))])))
        }
    }

    private func deliverAll() async {
        var spooled = spool?.entries() ?? [] {
            didSet { spooledCount.store(spooled.count, ordering: .relaxed) }
        }
        spooledCount.store(spooled.count, ordering: .relaxed)
        var lastSequence = spooled.last?.sequence
        var spoolWaits = configured.policy.retryBackoff
        if !spooled.isEmpty { Log.info("delivering spooled events", fields.merging(JSONObject(["count": .int(Int64(spooled.count))]))) }
        while true {
            if let spool, let entry = spooled.first {
                switch await deliver(Delivery(event: entry.event, route: entry.route)) {
                case .delivered, .failed:
                    spool.remove(entry)
                    spooled.removeFirst()
                    spoolWaits.reset()
                case .gaveUp(let requested, _, _):
                    spoolArrivals(spool, &spooled, &lastSequence)
                    if queue.isFinished || Task.isCancelled { return }
                    let wait = requested ?? spoolWaits.next()
                    if await !pause(wait, spool, &spooled, &lastSequence) { return }
                }
                continue
            }
            guard let delivery = await queue.next() else { return }
            guard case .gaveUp(_, let reason, let quiet) = await deliver(delivery) else { continue }
            guard let spool else {
                count(.failed, delivery.event, reason: "retries used up; no spool")
                Log.write(quiet ? .debug : .error, "delivery failed; event dropped (no spool)", fields(delivery.event))
                continue
            }
            save(delivery, reason: reason, to: spool, &spooled, &lastSequence)
            spoolArrivals(spool, &spooled, &lastSequence)
        }
    }

    /// Tries a delivery up to `attempts` times with backoff.
    private func deliver(_ delivery: Delivery) async -> Outcome {
        var delivery = delivery
        let policy = configured.policy
        if dryRun {
            Log.info("dry run: \(configured.plugin) would \(configured.action.describe(delivery))", fields(delivery.event))
            count(.delivered, delivery.event)
            return .delivered
        }
        for attempt in 1...max(1, policy.attempts) {
            delivery.attempt = attempt
            do {
                try await configured.action.perform(delivery)
                count(.delivered, delivery.event)
                return .delivered
            } catch {
                switch error {
                case .permanent(let reason):
                    count(.failed, delivery.event, reason: reason)
                    Log.error("delivery failed", fields(delivery.event, ["reason": .string(reason)]))
                    return .failed
                case .retryable, .targetDown:
                    let (reason, after, quiet) = (error.description, error.retryAfter, error.isTargetKnownDown)
                    let level: Log.Level = quiet ? .debug : .warning
                    if attempt == policy.attempts || Task.isCancelled {
                        Log.write(level, "delivery failed; retries used up", fields(delivery.event, ["reason": .string(reason), "attempts": .int(Int64(attempt))]))
                        return .gaveUp(after, reason: reason, quiet: quiet)
                    }
                    let wait = policy.delay(afterAttempt: attempt, requested: after)
                    count(.retried, delivery.event, reason: reason)
                    Log.write(level, "delivery failed; will retry", fields(delivery.event, ["reason": .string(reason), "attempt": .int(Int64(attempt)), "retry_in_ms": .int(Int64(wait.seconds * 1000))]))
                    do { try await Task.sleep(for: wait) } catch { return .gaveUp(nil, reason: "stopped while waiting to retry: \(reason)", quiet: quiet) }
                }
            }
        }
        return .gaveUp(nil, reason: "no attempt made", quiet: false)
    }

    /// Moves everything waiting in memory to the spool, behind what is there.
    private func spoolArrivals(_ spool: Spool, _ spooled: inout [Spool.Entry], _ lastSequence: inout UInt64?) {
        for delivery in queue.drain() { save(delivery, reason: nil, to: spool, &spooled, &lastSequence) }
    }

    /// `reason`: why the delivery failed, when it was tried (not for events spooled behind others).
    private func save(_ delivery: Delivery, reason: String?, to spool: Spool, _ spooled: inout [Spool.Entry], _ lastSequence: inout UInt64?) {
        do {
            let entry = try spool.append(delivery.event, route: delivery.route, after: lastSequence)
            lastSequence = entry.sequence
            spooled.append(entry)
            count(.spooled, delivery.event, reason: reason)
            Log.info("event spooled", fields(delivery.event))
        } catch {
            count(.failed, delivery.event, reason: "the spool cannot be written: \(error.description)")
            Log.error("event lost: the spool cannot be written", fields(delivery.event, ["reason": .string(error.description)]))
        }
    }

    /// Waits `duration` before the spool is retried, spooling arrivals meanwhile
    /// so they are on disk while the target is down. False when cancelled or finished.
    private func pause(_ duration: Duration, _ spool: Spool, _ spooled: inout [Spool.Entry], _ lastSequence: inout UInt64?) async -> Bool {
        let clock = ContinuousClock()
        let deadline = clock.now + duration
        while clock.now < deadline {
            do { try await Task.sleep(for: min(.milliseconds(200), deadline - clock.now)) } catch { return false }
            spoolArrivals(spool, &spooled, &lastSequence)
            if queue.isFinished { return false }
        }
        return true
    }
}

extension JSONObject {
    /// This object with `other`'s members added.
    func merging(_ other: JSONObject) -> JSONObject {
        var merged = self
        for (key, value) in other { merged[key] = value }
        return merged
    }
}
