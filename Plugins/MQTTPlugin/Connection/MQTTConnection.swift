import FoundationEssentials
import Glibc
import Lifecycle
import OrderedJSON
import Synchronization
import SystemKit

/// The one shared broker connection of a config: connects, reconnects with
/// backoff, announces availability, and publishes messages in the order they
/// were handed in, at least once for QoS ≥ 1.
///
/// A dedicated thread owns libmosquitto (see `MQTTSession`); callers only
/// append to the `Outbox` under a lock and wait. `publish` returns when the
/// broker acknowledged the message (PUBACK/PUBCOMP; for QoS 0, when it was
/// written to the socket). A message that cannot be handed over within its
/// hold time — the broker is down — is taken back out of the backlog and the
/// call throws `.notDelivered`, so the caller can retry or spool it without
/// it also going out later.
public final class MQTTConnection: Service {
    /// Where the connection stands.
    public enum Status: Sendable, Equatable {
        case idle
        case connecting
        case connected
        /// Lost or never made; the error says why, the next attempt follows after backoff.
        case disconnected(MQTTError)
        case stopped

        /// Not connected — never yet, lost, or between reconnect attempts: the
        /// connection reports the outage itself, once, so a message it could not
        /// deliver meanwhile needs no log line of its own.
        public var isDown: Bool { self != .connected }
    }

    /// Sendable said out loud (with `Outbox`'s): Swift 6.0 (Debian 13's) rejects a `withLock` that
    /// returns entries it does not know to be Sendable.
    struct Pending: Sendable {
        var message: MQTTMessage
        var deadline: ContinuousClock.Instant
        var hold: Duration
        var outcome: MQTTDelivery.Outcome
    }

    struct State {
        var outbox = Outbox<Pending>()
        var status: Status = .idle
        var statusSince = Date()
        var lastProblem = "not connected yet"
        var loggedProblem: String?
        var nextExpiryCheck = ContinuousClock.now
        var watchers: [UInt64: AsyncStream<Status>.Continuation] = [:]
        var nextWatcher: UInt64 = 0
        var started = false
        var finished: CheckedContinuation<Void, Never>?
        var threadDone = false
    }

    public let settings: MQTTSettings
    /// Messages arriving on `settings.subscriptions`, for one consumer, bounded
    /// by backpressure: while `incomingMessageLimit` messages or
    /// `incomingByteLimit` bytes wait for the consumer, the connection reads
    /// nothing more from the socket (the broker holds the rest) until the
    /// consumer has taken half of them. With `settings.acknowledgeWhenAccepted`
    /// in groups — every message waiting on the socket, within those limits —
    /// and the next group is read once the consumer released the acceptance of
    /// every message before.
    public let incoming: MQTTIncomingStream
    let incomingInput: AsyncStream<MQTTIncoming>.Continuation
    let incomingBacklog: IncomingBacklog
    let state = Mutex(State())
    let stopping = Atomic<Bool>(false)
    /// Stop now: with `settings.acknowledgeWhenAccepted`, without the acknowledgements of a group not yet accepted.
    let abandoning = Atomic<Bool>(false)
    let wake: WakePipe
    let subscribedLatch = Latch()
    let receivedCount = Atomic<Int>(0)
    let groupCount = Atomic<Int>(0)
    let takeoverCount = Atomic<Int>(0)
    /// Messages read from the socket and not yet taken by the consumer at which
    /// the connection stops reading; also the most handed over as one group with
    /// `settings.acknowledgeWhenAccepted`. One read of libmosquitto may bring up
    /// to its outgoing queue (`maxInFlight` plus the birth messages) more.
    static let incomingMessageLimit = 256
    /// The same in bytes (topic, payload, user properties). With MQTT 5 no message
    /// is larger than `MQTTSession.maximumIncomingPacket`; with 3.1.1 the broker's
    /// `max_packet_size` is the only bound of one message (docs/security.md).
    static let incomingByteLimit = 4 << 20
    /// Takeovers of the client id in a row after which a connection taken over once more stops
    /// reconnecting: another client with this id is connected (a second daemon on the same
    /// config), and two that take the id from each other flap every subscriber — Home
    /// Assistant's availability and discovery — about once a second. The one taken over gives up,
    /// the other keeps the id. A session that stayed `takeoverWindow` or longer starts the count anew.
    static let takeoversBeforeGivingUp = 2
    static let takeoverWindow = Duration.seconds(60)

    public init(_ settings: MQTTSettings) {
        self.settings = settings
        let (messages, input) = AsyncStream.makeStream(of: MQTTIncoming.self)
        incomingInput = input
        wake = WakePipe()
        incomingBacklog = IncomingBacklog(messageLimit: Self.incomingMessageLimit, byteLimit: Self.incomingByteLimit, wake: wake)
        incoming = MQTTIncomingStream(messages: messages, backlog: incomingBacklog)
    }

    /// The connection as a service: connects and stays connected until
    /// cancelled, then says `offline` and disconnects (`start`, then `stop`).
    public func run() async {
        start()
        await Latch().wait()
        await stop()
    }

    /// Starts the connection thread (once; later calls do nothing).
    public func start() {
        let first = state.withLock { state in
            defer { state.started = true }
            return !state.started
        }
        guard first else { return }
        DedicatedThread.start(name: "mqtt \(settings.broker)") { [self] in
            loop()
        }
    }

    /// Publishes `offline` (when an availability topic is set), disconnects
    /// cleanly and ends the thread; messages still waiting fail with `.stopped`.
    /// With `settings.acknowledgeWhenAccepted` it reads nothing more and first
    /// waits until the group handed over is accepted, so its acknowledgements
    /// go out with the DISCONNECT — unless `abandon()` comes first.
    public func stop() async {
        stopping.store(true, ordering: .releasing)
        wake.signal()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = state.withLock { state -> Bool in
                if state.threadDone || !state.started { return true }
                state.finished = continuation
                return false
            }
            if done { continuation.resume() }
        }
        finishAll(with: .stopped)
    }

    /// Stops now (from any thread; `stop()` still waits for the thread): with
    /// `settings.acknowledgeWhenAccepted` the group handed over and not yet
    /// accepted is not acknowledged — the connection closes without a word,
    /// and the broker sends the group again to the next session.
    public func abandon() {
        abandoning.store(true, ordering: .releasing)
        stopping.store(true, ordering: .releasing)
        wake.signal()
    }

    /// Publishes `message` after everything handed in before it and returns
    /// when it is delivered (see the type's documentation). Cancelling the
    /// caller does not withdraw the message.
    public func publish(_ message: MQTTMessage, hold: Duration) async throws(MQTTError) {
        try await enqueue(message, hold: hold).delivered()
    }

    /// Appends `message` to the backlog now, behind everything appended
    /// before, and returns at once; `delivered()` on the result waits for it.
    public func enqueue(_ message: MQTTMessage, hold: Duration) -> MQTTDelivery {
        let outcome = MQTTDelivery.Outcome()
        if let reason = MQTTSession.problem(with: message) {
            outcome.complete(.failure(.invalidMessage(topic: message.topic, reason: reason)))
            return MQTTDelivery(outcome: outcome, withdraw: {})
        }
        let ticket = state.withLock { state -> Outbox<Pending>.Ticket? in
            guard !isStopping else { return nil }
            return state.outbox.append(Pending(message: message, deadline: .now + hold, hold: hold, outcome: outcome))
        }
        guard let ticket else {
            outcome.complete(.failure(.stopped))
            return MQTTDelivery(outcome: outcome, withdraw: {})
        }
        wake.signal()
        return MQTTDelivery(outcome: outcome) { [weak self] in self?.withdraw(ticket) }
    }

    /// Takes a queued (not in-flight) message back out; its waiter gets `.cancelled`.
    private func withdraw(_ ticket: Outbox<Pending>.Ticket) {
        let entries = state.withLock { $0.outbox.withdraw { $0.ticket == ticket } }
        for entry in entries { entry.item.outcome.complete(.failure(.cancelled(topic: entry.item.message.topic))) }
    }

    /// Returns once the broker has acknowledged `settings.subscriptions` (on the
    /// first connection), or the caller is cancelled.
    public func subscribed() async { await subscribedLatch.wait() }

    /// Messages that arrived on the subscriptions so far (each acknowledged to the
    /// broker as it arrived, or once accepted with `settings.acknowledgeWhenAccepted`).
    public var received: Int { receivedCount.load(ordering: .relaxed) }

    /// Groups of messages handed over with `settings.acknowledgeWhenAccepted`
    /// (each acknowledged to the broker together once every message of it was accepted).
    public var groups: Int { groupCount.load(ordering: .relaxed) }

    /// How often the connection stopped reading the socket because its consumer
    /// had `incomingMessageLimit` messages (or `incomingByteLimit` bytes) waiting.
    public var heldBack: Int { incomingBacklog.snapshot.holdBacks }

    /// Messages (and their bytes) read and not yet taken by the consumer, now and at most so far.
    var unconsumed: IncomingBacklog.Counts { incomingBacklog.snapshot }

    /// Sessions another client took over, as far as the connection can tell: the broker
    /// said so (MQTT 5), or it closed an accepted connection and accepted the very next attempt.
    public var takeovers: Int { takeoverCount.load(ordering: .relaxed) }

    /// The current status.
    public var status: Status { state.withLock { $0.status } }

    /// The current status, since when it holds, and the last problem.
    public var report: (status: Status, since: Date, problem: String) { state.withLock { ($0.status, $0.statusSince, $0.lastProblem) } }

    /// Messages accepted and not yet acknowledged.
    public var backlog: Int { state.withLock { $0.outbox.count } }

    /// The current status, then every change, until the connection stops.
    public func statusUpdates() -> AsyncStream<Status> {
        let (stream, continuation) = AsyncStream.makeStream(of: Status.self)
        let id = state.withLock { state -> UInt64 in
            state.nextWatcher += 1
            state.watchers[state.nextWatcher] = continuation
            continuation.yield(state.status)
            if state.status == .stopped { continuation.finish() }
            return state.nextWatcher
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.watchers.removeValue(forKey: id) }
        }
        return stream
    }

    /// `stop()` or `abandon()` was asked: the loop thread ends its session and itself.
    var isStopping: Bool { stopping.load(ordering: .acquiring) }
    /// `abandon()` was asked: the session closes without its goodbye or the acknowledgements of a group not accepted.
    var isAbandoning: Bool { abandoning.load(ordering: .acquiring) }

    /// Queued messages past their hold time go back to their callers.
    /// Looks at most five times a second: the scan is linear in the backlog.
    func expireOverdue() {
        let now = ContinuousClock.now
        let (expired, problem) = state.withLock { state -> ([Outbox<Pending>.Entry], String) in
            guard now >= state.nextExpiryCheck else { return ([], "") }
            state.nextExpiryCheck = now + .milliseconds(200)
            return (state.outbox.withdraw { $0.item.deadline <= now }, state.lastProblem)
        }
        for entry in expired {
            let error = MQTTError.notDelivered(topic: entry.item.message.topic, waited: entry.item.hold, lastProblem: problem)
            entry.item.outcome.complete(.failure(error))
        }
    }

    /// Every message still in the backlog fails with `error`.
    func finishAll(with error: MQTTError) {
        let entries = state.withLock { $0.outbox.removeAll() }
        for entry in entries { entry.item.outcome.complete(.failure(error)) }
    }
}
