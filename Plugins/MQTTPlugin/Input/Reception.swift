import TagCore

/// An `mqtt` input's reception desk: turns each message into the event to
/// route — or logs why not — and counts what it saw in the input's counters.
/// One per `run`, used by its one consuming task.
struct Reception {
    let input: MQTTInput
    private var recent: RecentEventIDs?

    init(input: MQTTInput) {
        self.input = input
        recent = input.dedup > .zero ? RecentEventIDs(window: input.dedup) : nil
    }

    /// The event `message` brings, or nil: not a reading, a copy, or malformed (logged).
    mutating func event(from message: MQTTMessage) -> TagEvent? {
        input.counters.countReceived()
        do throws(InputProblem) {
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
            let malformed = input.counters.countMalformed()
            Log.warning("mqtt message skipped", JSONObject([
                "topic": .string(message.topic), "format": .string(input.format.rawValue), "reason": .string(error.description),
                "malformed": .int(Int64(malformed)),
            ]))
            return nil
        }
    }

    private func name(_ template: TopicName, _ topic: String) throws(InputProblem) -> String {
        switch template.name(for: topic) {
        case .success(let name): return name
        case .failure(let problem): throw InputProblem(problem.reason)
        }
    }
}
