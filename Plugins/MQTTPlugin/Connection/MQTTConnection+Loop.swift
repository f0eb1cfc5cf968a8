import FoundationEssentials
import Glibc
import Lifecycle
import OrderedJSON
import Synchronization
import SystemKit

/// The connection's thread: sessions from the attempt to their end, reconnecting with backoff; in a session,
/// announcing, handing the backlog to libmosquitto, taking in what the callbacks recorded, and the clean goodbye.
extension MQTTConnection {
    func loop() {
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
    func runSession(afterLoss: Bool) -> (accepted: Bool, problem: MQTTError?) {
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
    func announce(on session: MQTTSession) -> MQTTError? {
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
    func pump(_ session: MQTTSession) -> MQTTError? {
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
    func absorb(_ session: MQTTSession) {
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
    func step(_ session: MQTTSession, reading: Bool) -> MQTTError? {
        if reading { return session.step() }
        let problem = session.writeAndKeepAlive()
        return session.keepaliveExpired ? .consumerStalled(broker: settings.broker, keepalive: settings.keepalive) : problem
    }

    /// `step()` with `settings.acknowledgeWhenAccepted` (group commit across
    /// messages): reads every message waiting on the socket, hands them over as
    /// one group and waits until each is accepted — their PUBACKs queued in
    /// libmosquitto meanwhile — then writes those PUBACKs together.
    func stepAcknowledgingWhenAccepted(_ session: MQTTSession) -> MQTTError? {
        let problem = session.readWaiting(limit: Self.incomingMessageLimit, bytes: Self.incomingByteLimit)
        handOverAndWait(session.takeReceived())
        if isAbandoning { return nil }  // the PUBACKs of a group not accepted never go out
        return problem ?? session.writeAndKeepAlive()
    }

    /// A clean goodbye: retained `offline`, then DISCONNECT, flushed within two
    /// seconds. With `acknowledgeWhenAccepted` nothing more is read: the last
    /// message's PUBACK goes out with the DISCONNECT, not the next message;
    /// without, only while the backlog has room.
    /// The socket is closed only once the broker closed its side (`SocketDrain`):
    /// a reset would make it drop those PUBACKs and the DISCONNECT unread.
    func leave(_ session: MQTTSession) {
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

    /// Waits until the socket is ready (for reading only when `reading`), the thread is woken, or the timeout passes.
    func waitForActivity(on session: MQTTSession, reading: Bool, timeoutMilliseconds: Int32) {
        let socket = session.socket
        let events = (reading ? Int16(POLLIN) : 0) | (session.wantsWrite ? Int16(POLLOUT) : 0)
        wake.wait(alongside: socket, events: events, timeoutMilliseconds: timeoutMilliseconds)
    }

    /// Sleeps for the backoff delay, waking early to stop, and to expire overdue messages each second.
    func waitForRetry(_ delay: Duration) {
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
