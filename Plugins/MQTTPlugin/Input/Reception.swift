import Lifecycle
import OrderedJSON
import SystemKit
import TagCore

/// An `mqtt` input's reception desk: turns each message into the event to
/// route — or logs why not — and counts what it saw in the input's counters.
/// In order: the topic must match the input's filter (a persistent session may
/// still hold an older config's subscription), the signature must hold
/// (`trust: signed`), the payload must be of the format, the event must pass
/// the intake (`InputIntake`), and its id must be new to every input of the
/// daemon, also across restarts (`SeenEvents`).
/// One per `run`, used by its one consuming task.
struct Reception {
    let input: MQTTInput
    /// This desk's number in `SeenEvents`, for the ids it admitted.
    private let number = SeenEvents.nextReception()
    private var throttle = WarningThrottle<InputRefusal>()

    init(input: MQTTInput) {
        self.input = input
    }

    /// The input's run is over: the ids it admitted whose events were not accepted are
    /// forgotten, so that the broker's redelivery of them is routed (`SeenEvents.forgetUnaccepted`).
    func close() {
        input.seen?.forgetUnaccepted(reception: number)
    }

    /// The event `message` brings, or nil: not a reading, a copy, or refused (logged at most once a minute per reason).
    mutating func event(from message: MQTTMessage) -> TagEvent? {
        input.counters.countReceived()
        guard input.filter.matches(message.topic) else {
            input.counters.countIgnored()
            Log.debug("mqtt message outside the input's topic filter ignored", JSONObject([
                "topic": .string(message.topic), "filter": .string(input.filter.subscription),
            ]))
            return nil
        }
        do throws(InputProblem) {
            let signer = try input.intake.signer(of: message)
            guard case .event(var event) = try input.format.read(message.payload) else {
                input.counters.countIgnored()
                return nil
            }
            if let reader = input.reader { event.reader = try name(reader, message.topic) }
            if let signer {
                let topicNode = try input.node.map { template throws(InputProblem) in try name(template, message.topic) }
                event.node = try InputIntake.node(signedBy: signer, claims: [(event.node, "the event"), (topicNode, "the topic, by the input's `node`,")])
            } else if event.node == nil, let node = input.node {
                event.node = try name(node, message.topic)
            } else if event.node == nil, input.format == .tasmota {
                event.node = event.reader
            }
            event = try input.intake.admit(event)
            guard isFirst(event) else {
                input.counters.countDuplicate()
                Log.debug("duplicate event dropped", JSONObject(["event_id": .string(event.id), "topic": .string(message.topic)]))
                return nil
            }
            return event
        } catch {
            refuse(message, error)
            return nil
        }
    }

    /// False for a copy of an event some input of this daemon routed (`SeenEvents`), remembered for
    /// `dedup` from now and at least until the event's time plus `max_age`, when it would be refused anyway.
    private func isFirst(_ event: TagEvent) -> Bool {
        guard let seen = input.seen else { return true }
        return seen.isFirst(event.id, until: rememberedUntil(event), reception: number)
    }

    /// Until when the id of `event` is remembered, in milliseconds since the epoch.
    func rememberedUntil(_ event: TagEvent, now: Int64 = SeenEvents.now()) -> Int64 {
        let forDedup = now + Int64(input.dedup.seconds * 1000)
        guard let maxAge = input.intake.maxAge else { return forDedup }
        return max(forDedup, Int64((event.time.timeIntervalSince1970 + maxAge.seconds) * 1000))
    }

    /// What to route `event` with: once the router has accepted it, its id is written down
    /// (`SeenEvents.record`), then `upstream` is released (the broker's acknowledgement).
    func recording(_ event: TagEvent, upstream: Acceptance?) -> Acceptance? {
        guard let seen = input.seen else { return upstream }
        let (id, until) = (event.id, rememberedUntil(event))
        return Acceptance {
            seen.record(id, until: until)
            upstream?.release()
        }
    }

    private mutating func refuse(_ message: MQTTMessage, _ problem: InputProblem) {
        let count = input.counters.countRefused(problem.refusal)
        guard let held = throttle.admit(problem.refusal) else { return }
        input.counters.countWarning()
        var fields = JSONObject([
            "topic": .string(String(message.topic.prefix(256))), "format": .string(input.format.rawValue),
            "refusal": .string(problem.refusal.rawValue), "reason": .string(problem.description), "count": .int(Int64(count)),
        ])
        if held > 0 { fields["not_logged"] = .int(Int64(held)) }
        Log.warning("mqtt message refused (at most one line a minute per refusal)", fields)
    }

    private func name(_ template: TopicName, _ topic: String) throws(InputProblem) -> String {
        switch template.name(for: topic) {
        case .success(let name): return name
        case .failure(let problem): throw InputProblem(problem.reason)
        }
    }
}
