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

    private struct State {
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
    private let incomingInput: AsyncStream<MQTTIncoming>.Continuation
    private let incomingBacklog: IncomingBacklog
    private let state = Mutex(State())
    private let stopping = Atomic<Bool>(false)
    /// Stop now: with `settings.acknowledgeWhenAccepted`, without the acknowledgements of a group not yet accepted.
    private let abandoning = Atomic<Bool>(false)
    private let wake: WakePipe
    private let subscribedLatch = Latch()
    private let receivedCount = Atomic<Int>(0)
    private let groupCount = Atomic<Int>(0)
    private let takeoverCount = Atomic<Int>(0)
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

    // MARK: The loop thread

    private var isStopping: Bool { stopping.load(ordering: .acquiring) }
    private var isAbandoning: Bool { abandoning.load(ordering: .acquiring) }

    private func loop() {
        var failures = 0
        var lost = false
        var takenOverInARow = 0
        while !isStopping {
            let (before, started) = (takeovers, ContinuousClock.now)
            let (accepted, ending) = runSession(afterLoss: lost)
            state.withLock { $0.outbox.connectionEnded() }
            if accepted { failures = 0 }
            if isStopping { break }
            failures += 1
            var problem = ending ?? .unreachable(broker: settings.broker, reason: "connection closed")
            if accepted, case .unreachable(let broker, let reason) = problem {
                problem = .connectionLost(broker: broker, clientID: settings.clientID, reason: reason)
            }
            var takenOver = false
            if case .takenOver = problem {
                takeoverCount.add(1, ordering: .relaxed)
                takenOver = true
            }
            if case .connectionLost = problem { lost = true } else { lost = false }
            if takeovers > before {
                takenOverInARow += 1
            } else if accepted, ContinuousClock.now - started >= Self.takeoverWindow {
                takenOverInARow = 0
            }
            report(.disconnected(problem), problem: problem.description)
            if accepted, lost || takenOver, takenOverInARow >= Self.takeoversBeforeGivingUp {
                giveUpTheClientID(after: takenOverInARow)
                break
            }
            waitForRetry(settings.backoff.delay(forAttempt: failures))
        }
        finishAll(with: .stopped)
        incomingInput.finish()
        let (finished, watchers) = state.withLock { state in
            state.threadDone = true
            state.status = .stopped
            state.statusSince = Date()
            defer { state.finished = nil; state.watchers.removeAll() }
            return (state.finished, Array(state.watchers.values))
        }
        // Outside the lock: finishing a stream runs its onTermination, which takes the lock.
        for watcher in watchers {
            watcher.yield(.stopped)
            watcher.finish()
        }
        finished?.resume()
    }

    /// One connection from attempt to end: whether the broker accepted it, and why it ended.
    /// `afterLoss`: the session before was accepted and then closed by the broker
    /// without a reason (MQTT 3.1.1, or a broker that does not send one on a takeover).
    private func runSession(afterLoss: Bool) -> (accepted: Bool, problem: MQTTError?) {
        let session: MQTTSession
        do {
            session = try MQTTSession(settings: settings)
            report(.connecting, problem: nil)
            try session.connect()
        } catch {
            return (false, error)
        }
        var announced = false
        var moreToSend = false
        while true {
            if isStopping {
                // Abandoned: closed without DISCONNECT or the PUBACKs queued for a group not accepted.
                if announced, !isAbandoning { leave(session) }
                return (announced, nil)
            }
            let reading = settings.acknowledgeWhenAccepted || incomingBacklog.mayRead()
            waitForActivity(on: session, reading: reading, timeoutMilliseconds: moreToSend ? 0 : 1000)
            if let problem = settings.acknowledgeWhenAccepted ? stepAcknowledgingWhenAccepted(session) : step(session, reading: reading) {
                absorb(session)
                return (announced, problem)
            }
            absorb(session)
            if session.isAccepted, !announced {
                announced = true
                if afterLoss { reportLikelyTakeover() }
                if let problem = announce(on: session) { return (true, problem) }
            }
            if announced {
                let problem = pump(session)
                absorb(session)  // QoS 0 messages complete while they are written, inside pump
                if let problem { return (true, problem) }
                moreToSend = state.withLock { $0.outbox.queuedCount > 0 && $0.outbox.inFlightCount < settings.maxInFlight }
            }
            expireOverdue()
        }
    }

    /// The broker closed the connection before and accepted this very next attempt: it
    /// stayed up (or restarted within the backoff), so another client most likely
    /// connected with the same client id. MQTT 3.1.1 cannot say which; mosquitto 2.0
    /// does not send MQTT 5's reason 0x8E either.
    private func reportLikelyTakeover() {
        takeoverCount.add(1, ordering: .relaxed)
        let problem = MQTTError.takenOver(broker: settings.broker, clientID: settings.clientID).description
        state.withLock { $0.lastProblem = problem }
        Log.warning(
            "another client took over client id '\(settings.clientID)' on the MQTT broker \(settings.broker), or the broker restarted: "
                + "it closed the connection and accepted the next attempt at once",
            JSONObject(["broker": .string(settings.broker), "client_id": .string(settings.clientID), "error": .string(problem)]))
    }

    /// Taken over again and again: says so, and waits for the daemon to stop without reconnecting.
    private func giveUpTheClientID(after count: Int) {
        let problem = "client id '\(settings.clientID)' taken over \(count + 1) times in a row on the MQTT broker \(settings.broker): "
            + "not reconnecting, so as not to fight for it"
        state.withLock { $0.lastProblem = problem }
        Log.error(
            "another client keeps taking over client id '\(settings.clientID)' on the MQTT broker \(settings.broker) — most likely a second "
                + "tagrouter on this config; this one stops reconnecting so the two do not take it from each other (which flaps Home "
                + "Assistant). Stop the other one, or give each its own `mqtt.client_id`, then restart this one",
            JSONObject(["broker": .string(settings.broker), "client_id": .string(settings.clientID), "error": .string(problem)]))
        while !isStopping { waitForRetry(.seconds(3600)) }
    }

    /// Availability `online`, the birth messages and the subscriptions, before any backlog.
    private func announce(on session: MQTTSession) -> MQTTError? {
        report(.connected, problem: nil)
        Log.info("mqtt connected", JSONObject(["broker": .string(settings.broker), "client_id": .string(settings.clientID)]))
        var births = settings.birthMessages
        if let topic = settings.availabilityTopic {
            births.insert(MQTTMessage(topic: topic, text: "online", qos: 1, retain: true), at: 0)
        }
        for message in births {
            if case .failure(let problem) = session.publish(message) { return problem }
        }
        for filter in settings.subscriptions {
            if let problem = session.subscribe(filter) { return problem }
        }
        return nil
    }

    /// Hands queued messages to libmosquitto, oldest first, up to the in-flight window.
    private func pump(_ session: MQTTSession) -> MQTTError? {
        state.withLock { state -> MQTTError? in
            while let entry = state.outbox.takeNext(window: settings.maxInFlight) {
                switch session.publish(entry.item.message) {
                case .success(let mid):
                    state.outbox.sent(entry, mid: mid)
                case .failure(let problem):
                    state.outbox.putBack(entry)
                    return problem
                }
            }
            return nil
        }
    }

    /// Applies what the callbacks recorded: completed deliveries and incoming messages.
    private func absorb(_ session: MQTTSession) {
        let mids = session.takeCompletedMids()
        if !mids.isEmpty {
            let outcomes = state.withLock { state in
                mids.compactMap { state.outbox.acknowledged(mid: $0)?.item.outcome }
            }
            for outcome in outcomes { outcome.complete(.success(())) }
        }
        for message in session.takeReceived() {
            receivedCount.add(1, ordering: .relaxed)
            incomingBacklog.handedOver(message)
            incomingInput.yield(MQTTIncoming(message: message, acceptance: nil))
        }
        for granted in session.takeSubscribeAcks() {
            let fields = JSONObject(["broker": .string(settings.broker), "topics": .array(settings.subscriptions.map(JSONValue.string))])
            if granted {
                // One line per connection: when the last filter is granted (one SUBACK per filter).
                session.grantedSubscriptions += 1
                if session.grantedSubscriptions == settings.subscriptions.count { Log.info("mqtt subscribed", fields) }
                subscribedLatch.open()
            } else {
                Log.error("the MQTT broker refused the subscription; check its ACL and that it supports the topic filter", fields)
            }
        }
    }

    /// `step()` without `settings.acknowledgeWhenAccepted`: reads only while the
    /// backlog has room; else only writes and keeps alive. A PINGRESP (and the
    /// PUBACKs of our own messages) then waits behind the unread messages, so a
    /// consumer that takes nothing for about two `keepalive` intervals makes
    /// libmosquitto give the connection up as dead, and it reconnects.
    private func step(_ session: MQTTSession, reading: Bool) -> MQTTError? {
        if reading { return session.step() }
        let problem = session.writeAndKeepAlive()
        return session.keepaliveExpired ? .consumerStalled(broker: settings.broker, keepalive: settings.keepalive) : problem
    }

    /// `step()` with `settings.acknowledgeWhenAccepted` (group commit across
    /// messages): reads every message waiting on the socket, hands them over as
    /// one group and waits until each is accepted — their PUBACKs queued in
    /// libmosquitto meanwhile — then writes those PUBACKs together.
    private func stepAcknowledgingWhenAccepted(_ session: MQTTSession) -> MQTTError? {
        let problem = session.readWaiting(limit: Self.incomingMessageLimit, bytes: Self.incomingByteLimit)
        handOverAndWait(session.takeReceived())
        if isAbandoning { return nil }  // the PUBACKs of a group not accepted never go out
        return problem ?? session.writeAndKeepAlive()
    }

    /// Hands `messages` to the consumer and holds the loop thread — libmosquitto
    /// reads and writes nothing meanwhile, so their PUBACKs stay queued — until
    /// the consumer accepted every one, also through a `stop()` (the PUBACKs then
    /// go out with the DISCONNECT), or until `abandon()` (they never go out).
    private func handOverAndWait(_ messages: [MQTTMessage]) {
        guard !messages.isEmpty else { return }
        receivedCount.add(messages.count, ordering: .relaxed)
        groupCount.add(1, ordering: .relaxed)
        let unaccepted = Countdown(messages.count)
        let wake = wake
        for message in messages {
            incomingBacklog.handedOver(message)
            incomingInput.yield(MQTTIncoming(message: message, acceptance: Acceptance {
                if unaccepted.countDown() { wake.signal() }
            }))
        }
        while !unaccepted.isDone, !isAbandoning {
            wake.wait(alongside: -1, events: 0, timeoutMilliseconds: 1000)
        }
    }

    /// A clean goodbye: retained `offline`, then DISCONNECT, flushed within two
    /// seconds. With `acknowledgeWhenAccepted` nothing more is read: the last
    /// message's PUBACK goes out with the DISCONNECT, not the next message;
    /// without, only while the backlog has room.
    /// The socket is closed only once the broker closed its side (`SocketDrain`):
    /// a reset would make it drop those PUBACKs and the DISCONNECT unread.
    private func leave(_ session: MQTTSession) {
        let drain = SocketDrain(duplicating: session.socket)
        if let topic = settings.availabilityTopic {
            _ = session.publish(MQTTMessage(topic: topic, text: "offline", qos: 1, retain: true))
        }
        session.disconnect()
        let deadline = ContinuousClock.now + .seconds(2)
        while session.socket >= 0, ContinuousClock.now < deadline {
            let reading = !settings.acknowledgeWhenAccepted && incomingBacklog.mayRead()
            waitForActivity(on: session, reading: reading, timeoutMilliseconds: 100)
            if (settings.acknowledgeWhenAccepted ? session.flush() : step(session, reading: reading)) != nil { break }
        }
        absorb(session)
        drain?.drainAndClose(until: deadline)
    }

    /// Queued messages past their hold time go back to their callers.
    /// Looks at most five times a second: the scan is linear in the backlog.
    private func expireOverdue() {
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

    private func finishAll(with error: MQTTError) {
        let entries = state.withLock { $0.outbox.removeAll() }
        for entry in entries { entry.item.outcome.complete(.failure(error)) }
    }

    /// Records and broadcasts a status; logs a problem once, not on every retry.
    private func report(_ status: Status, problem: String?) {
        let newProblem = state.withLock { state -> String? in
            if let problem { state.lastProblem = problem }
            if status == .connected { state.loggedProblem = nil }
            if state.status != status {
                state.status = status
                state.statusSince = Date()
                for watcher in state.watchers.values { watcher.yield(status) }
            }
            guard let problem, problem != state.loggedProblem else { return nil }
            state.loggedProblem = problem
            return problem
        }
        if let newProblem {
            let message: String
            switch status {
            case .disconnected(.unreachable):
                message = "no MQTT broker on \(settings.broker); publishing resumes when one answers"
            case .disconnected(.takenOver):
                message = "another client took over client id '\(settings.clientID)' on the MQTT broker \(settings.broker); reconnecting"
            case .disconnected(.consumerStalled):
                message = "nothing was read from the MQTT broker \(settings.broker) while the daemon took none of the messages waiting; reconnecting"
            case .disconnected(.connectionLost):
                message = "the MQTT broker \(settings.broker) closed the connection of client id '\(settings.clientID)'; reconnecting"
            default:
                message = "MQTT broker \(settings.broker) not connected; publishing resumes when it accepts the connection"
            }
            Log.warning(message, JSONObject(["broker": .string(settings.broker), "error": .string(newProblem)]))
        }
    }

    /// Waits until the socket is ready (for reading only when `reading`), the thread is woken, or the timeout passes.
    private func waitForActivity(on session: MQTTSession, reading: Bool, timeoutMilliseconds: Int32) {
        let socket = session.socket
        let events = (reading ? Int16(POLLIN) : 0) | (session.wantsWrite ? Int16(POLLOUT) : 0)
        wake.wait(alongside: socket, events: events, timeoutMilliseconds: timeoutMilliseconds)
    }

    /// Sleeps for the backoff delay, waking early to stop, and to expire overdue messages each second.
    private func waitForRetry(_ delay: Duration) {
        let deadline = ContinuousClock.now + delay
        while !isStopping {
            expireOverdue()
            let left = deadline - .now
            if left <= .zero { return }
            let milliseconds = Int32(min(1000, left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000 + 1))
            wake.wait(alongside: -1, events: 0, timeoutMilliseconds: milliseconds)
        }
    }
}

/// The messages of a group the consumer has not accepted yet, counted down from any thread.
private final class Countdown: Sendable {
    private let left: Atomic<Int>

    init(_ count: Int) { left = Atomic(count) }

    /// One more accepted; true for the last.
    func countDown() -> Bool { left.subtract(1, ordering: .acquiringAndReleasing).newValue == 0 }

    var isDone: Bool { left.load(ordering: .acquiring) <= 0 }
}
