import OrderedJSON
import SystemKit
import TagCore

/// An `mqtt` input's reception desk: turns each message into the event to
/// route — or logs why not — and counts what it saw in the input's counters.
/// In order: the topic must match the input's filter (a persistent session may
/// still hold an older config's subscription), the signature must hold
/// (`trust: signed`), the payload must be of the format, the event must pass
/// the intake (`InputIntake`), and its id must be new within `dedup`.
/// One per `run`, used by its one consuming task.
struct Reception {
    let input: MQTTInput
    private var recent: RecentEventIDs?
    private var throttle = WarningThrottle<InputRefusal>()

    init(input: MQTTInput) {
        self.input = input
        recent = input.dedup > .zero ? RecentEventIDs(window: input.dedup) : nil
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
            if let problem = input.intake.signatureProblem(message) {
                throw InputProblem(InputRefusal(problem), "\(problem.rawValue): the input takes only events signed with a key of its `keys`")
            }
            guard case .event(var event) = try input.format.read(message.payload) else {
                input.counters.countIgnored()
                return nil
            }
            if let reader = input.reader { event.reader = try name(reader, message.topic) }
            if event.node == nil, let node = input.node {
                event.node = try name(node, message.topic)
            } else if event.node == nil, input.format == .tasmota {
                event.node = event.reader
            }
            event = try input.intake.admit(event)
            // Mutated in place: a copy (`if var`) copied every remembered id per message.
            if let first = recent?.isFirst(event.id) {
                guard first else {
                    input.counters.countDuplicate()
                    Log.debug("duplicate event dropped", JSONObject(["event_id": .string(event.id), "topic": .string(message.topic)]))
                    return nil
                }
            }
            return event
        } catch {
            refuse(message, error)
            return nil
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
