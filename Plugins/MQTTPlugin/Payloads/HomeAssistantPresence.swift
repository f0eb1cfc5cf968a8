import OrderedJSON
import Synchronization
import TagCore

/// The presence of tags on each discovered reader, published retained on
/// `<base_topic>/<reader>/presence` for HA's "current tag" sensor and "tag
/// present" binary sensor (`HomeAssistantDiscovery`). Shared by the router's
/// dispatch (which reports every event) and the birth-message task.
final class HomeAssistantPresence: Sendable {
    let discovery: HomeAssistantDiscovery
    let readers: [String]
    private let states: Mutex<[String: ReaderPresence]>

    init(discovery: HomeAssistantDiscovery, readers: [String]) {
        self.discovery = discovery
        self.readers = readers
        states = Mutex(Dictionary(readers.map { ($0, ReaderPresence()) }, uniquingKeysWith: { first, _ in first }))
    }

    /// The state message `event` leads to, if it changes what its reader shows.
    func message(after event: TagEvent) -> MQTTMessage? {
        let payload = states.withLock { states -> JSONValue? in
            guard states[event.reader]?.apply(event) == true else { return nil }
            return states[event.reader]?.payload
        }
        return payload.map { message(reader: event.reader, payload: $0) }
    }

    /// Every reader's current state (published at start and when HA comes online).
    var messages: [MQTTMessage] {
        let payloads = states.withLock { states in readers.map { states[$0]?.payload ?? ReaderPresence().payload } }
        return zip(readers, payloads).map { message(reader: $0, payload: $1) }
    }

    private func message(reader: String, payload: JSONValue) -> MQTTMessage {
        MQTTMessage(topic: discovery.presenceTopic(reader: reader), text: payload.serialized(), qos: 1, retain: true)
    }
}
