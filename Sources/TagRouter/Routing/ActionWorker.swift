import Lifecycle
import OrderedJSON
import Synchronization
import SystemKit
import TagCore

/// Runs one configured action: its bounded queue, its task, retries with
/// backoff, and its spool. Events for the same action are delivered in order,
/// local readers' ahead of those waiting from inputs (the queue's two lanes).
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
    /// What the spool holds, in order, up to a queue's worth in memory.
    private let backlog: SpoolBacklog?
    private let dryRun: Bool
    private let counters = Mutex(ActionCounters())
    private let observer: DaemonObserver?
    private let attention: ActionAttention
    /// Deliveries written ahead to the spool and not yet done.
    private let spooledCount = Atomic<Int>(0)

    /// `stateDirectory`: where the action's spool goes when it has `spool: true`;
    /// nil when spools cannot be kept (then every action delivers or fails).
    init(_ configured: ConfiguredAction, stateDirectory: String?, dryRun: Bool, observer: DaemonObserver? = nil) {
        self.configured = configured
        self.observer = observer
        attention = ActionAttention(configured)
        self.queue = BoundedQueue(capacity: configured.policy.queueCapacity)
        let spool = configured.policy.spool && !dryRun ? stateDirectory.map { Spool(directory: Spool.directory(of: configured.id, under: $0)) } : nil
        self.spool = spool
        backlog = spool.map { SpoolBacklog(spool: $0, limit: configured.policy.queueCapacity) }
        self.dryRun = dryRun
    }

    var snapshot: ActionCounters { counters.withLock { $0 } }

    /// Deliveries waiting in memory.
    var pending: Int { queue.count }

    /// Deliveries held in memory: waiting in the queue, and accepted (written
    /// ahead) behind the one being delivered; the rest wait on disk only.
    var heldInMemory: Int { queue.count + (backlog?.held ?? 0) }

    /// Deliveries waiting in the spool (less those it could not read back).
    var spoolDepth: Int { spooledCount.load(ordering: .relaxed) - (backlog?.unreadable ?? 0) }

    /// Counts one result, tells the observer, and logs it by the one rule of `ActionAttention`.
    /// `quiet`: the target is known down (said once by its plugin), or a summary line says it;
    /// `fromSpool`: the delivery was written ahead to the spool (it is still counted in `spoolDepth`).
    private func count(_ result: ActionResult, _ event: TagEvent, reason: String? = nil, quiet: Bool = false, fromSpool: Bool = false) {
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
        let spoolLeft = max(0, spoolDepth - (fromSpool ? 1 : 0))
        attention.note(result, event, reason: reason, quiet: quiet, fromSpool: fromSpool, spoolLeft: spoolLeft)
    }

    /// The fields of the worker's own lines about its spool.
    private func fields(_ extra: KeyValuePairs<String, JSONValue> = [:]) -> JSONObject {
        var object = JSONObject(["action": .string(configured.id)])
        for (key, value) in extra { object[key] = value }
        return object
    }

    /// Queues a delivery. A full live lane drops its oldest, unless `waitForRoom`:
    /// then the caller waits for room in the waiting lane (and drops only when
    /// cancelled meanwhile).
    /// A worker with a spool holds `acceptance` until the delivery is written ahead.
    func enqueue(_ delivery: Delivery, waitForRoom: Bool, acceptance: Acceptance? = nil) async {
        var delivery = delivery
        if spool != nil, let acceptance {
            acceptance.hold()
            delivery.acceptance = acceptance
        }
        if waitForRoom, await queue.send(delivery) { return }
        guard let dropped = queue.push(delivery) else { return }
        dropped.acceptance?.release()
        let reason = dropped.event.id == delivery.event.id ? "router is shutting down" : "queue full (\(queue.capacity)); oldest event dropped"
        count(.dropped, dropped.event, reason: reason)
    }

    /// No more deliveries; `run` returns once the queue is empty (or spooled).
    func finish() { queue.finish() }

    /// The worker's loop until the queue is finished and delivered, or the task
    /// is cancelled. With a spool every delivery is written ahead to it before
    /// its first attempt; without one, what is left at cancellation is logged as lost.
    func run() async {
        if let spool, let backlog { await deliverWrittenAhead(spool, backlog) } else { await deliverFromMemory() }
    }

    private func deliverFromMemory() async {
        while let delivery = await queue.next() {
            guard case .gaveUp(_, let reason, let quiet) = await deliver(delivery) else { continue }
            count(.failed, delivery.event, reason: "\(reason) (retries used up; no spool)", quiet: quiet)
        }
        let left = queue.drain()
        for delivery in left { count(.failed, delivery.event, reason: "stopped before delivery; no spool (\(left.count) events lost)") }
    }

    /// Two loops: one writes what arrives in the queue ahead to the spool — all
    /// that waits at once as one batch (group commit) — the other delivers from
    /// there in order, the spool's earlier entries first, and marks each done.
    private func deliverWrittenAhead(_ spool: Spool, _ accepted: SpoolBacklog) async {
        let recovered = spool.recover()
        let count = recovered.reduce(0) { $0 + $1.count }
        if count > 0 { attention.spooledFromBefore(count) }
        for range in recovered { accepted.push(onDisk: range) }
        spooledCount.store(count, ordering: .relaxed)
        let queueEnded = Latch()
        // A task group rather than `async let`, which crashes Swift 6.0 (Debian 13's) here.
        let stoppedAt = await withTaskGroup(of: Void.self) { writing in
            writing.addTask { await self.writeAhead(to: spool, accepted, then: queueEnded) }
            let stoppedAt = await deliverAccepted(accepted, spool, queueEnded)
            await writing.waitForAll()
            return stoppedAt
        }
        keepForLater(stoppedAt, accepted)
    }

    /// Writes each batch the queue holds to the spool, then hands it on; when the
    /// spool refuses, the batch is handed on from memory (logged once per outage).
    private func writeAhead(to spool: Spool, _ accepted: SpoolBacklog, then ended: Latch) async {
        var failing = false
        func write(_ batch: [Delivery]) async {
            guard !batch.isEmpty else { return }
            // On disk, or known never to get there (logged below): the sources may acknowledge.
            defer { for delivery in batch { delivery.acceptance?.release() } }
            switch await spool.write(batch) {
            case .success(let entries):
                Log.debug("\(configured.id): written ahead to the spool", fields(["count": .int(Int64(entries.count))]))
                if failing { Log.info("\(configured.id): the spool is written again", fields()) }
                failing = false
                spooledCount.add(entries.count, ordering: .relaxed)
                for entry in entries { accepted.push(AcceptedDelivery(delivery: entry.delivery, sequence: entry.sequence)) }
            case .failure(let error):
                // Reported once per outage; each further batch at debug level.
                Log.write(
                    failing ? .debug : .error,
                    "\(configured.id): the spool cannot be written; events wait in memory only and are lost if tagrouter stops before they are delivered",
                    fields(["reason": .string(error.description), "count": .int(Int64(batch.count))]))
                failing = true
                for delivery in batch { accepted.push(AcceptedDelivery(delivery: delivery, sequence: nil)) }
            }
        }
        while let first = await queue.next() { await write([first] + queue.drain()) }
        await write(queue.drain())  // cancelled: what the queue still holds
        ended.open()
        accepted.finish()
    }

    /// Delivers accepted deliveries in order; the head is retried, with growing
    /// waits, until it is done — everything behind it waits on disk meanwhile.
    /// Returns the head it stopped at: cancelled, or the queue ended while the
    /// target was still down.
    private func deliverAccepted(_ accepted: SpoolBacklog, _ spool: Spool, _ queueEnded: Latch) async -> AcceptedDelivery? {
        var waits = configured.policy.retryBackoff
        while var head = await accepted.next() {
            while case .gaveUp(let requested, let reason, let quiet) = await deliver(head.delivery, fromSpool: head.sequence != nil) {
                if !head.waited {
                    head.waited = true
                    if head.sequence != nil { count(.spooled, head.delivery.event, reason: reason, quiet: quiet) }
                }
                if queueEnded.isOpen || Task.isCancelled { return head }
                let wait = requested ?? waits.next()
                do { try await queueEnded.cancelling { try await Task.sleep(for: wait) } } catch { return head }
                if queueEnded.isOpen { return head }
            }
            waits.reset()
            if let sequence = head.sequence {
                spool.markDone(through: sequence)
                spooledCount.subtract(1, ordering: .relaxed)
            }
        }
        return nil
    }

    /// Accounts for what the worker stopped before delivering: on disk it is
    /// delivered after the next start; held in memory only, it is lost.
    /// `stoppedAt`: the delivery it stopped at, then what waits in `accepted`.
    private func keepForLater(_ stoppedAt: AcceptedDelivery?, _ accepted: SpoolBacklog) {
        var (onDisk, lost) = (0, [AcceptedDelivery]())
        func keep(_ left: AcceptedDelivery) {
            guard left.sequence != nil else { return lost.append(left) }
            onDisk += 1
            if !left.waited { count(.spooled, left.delivery.event, reason: "stopped before delivery", quiet: true) }
        }
        if let stoppedAt { keep(stoppedAt) }
        accepted.drain(keep)
        if onDisk > 0 {
            Log.info("\(configured.id): stopped before delivery; \(onDisk) events wait in the spool for the next start", fields(["count": .int(Int64(onDisk))]))
        }
        for delivery in lost {
            count(.failed, delivery.delivery.event, reason: "stopped before delivery; the spool could not be written (\(lost.count) events lost)")
        }
    }

    /// Tries a delivery up to `attempts` times with backoff; `fromSpool`: it was written ahead.
    private func deliver(_ delivery: Delivery, fromSpool: Bool = false) async -> Outcome {
        var delivery = delivery
        let policy = configured.policy
        if dryRun {
            Log.info("dry run: \(configured.plugin) would \(configured.action.describe(delivery))", fields(["event_id": .string(delivery.event.id)]))
            count(.delivered, delivery.event)
            return .delivered
        }
        for attempt in 1...max(1, policy.attempts) {
            delivery.attempt = attempt
            do {
                try await configured.action.perform(delivery)
                count(.delivered, delivery.event, fromSpool: fromSpool)
                return .delivered
            } catch {
                switch error {
                case .permanent(let reason):
                    count(.failed, delivery.event, reason: reason)
                    return .failed
                case .retryable, .targetDown:
                    let (reason, after, quiet) = (error.description, error.retryAfter, error.isTargetKnownDown)
                    if attempt == policy.attempts || Task.isCancelled { return .gaveUp(after, reason: reason, quiet: quiet) }
                    let wait = policy.delay(afterAttempt: attempt, requested: after)
                    count(.retried, delivery.event, reason: reason, quiet: quiet)
                    do { try await Task.sleep(for: wait) } catch { return .gaveUp(nil, reason: "stopped while waiting to retry: \(reason)", quiet: quiet) }
                }
            }
        }
        return .gaveUp(nil, reason: "no attempt made", quiet: false)
    }
}
