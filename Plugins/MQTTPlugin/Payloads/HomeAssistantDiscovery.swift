import TagCore

/// Home Assistant MQTT discovery for the configured readers, as HA documents it
/// (docs/home-assistant.md has the sources):
///
/// - one **tag scanner** per reader, retained on `<prefix>/tag/<node_id>/<reader>/config`
///   with `topic` (where the reader's `tag.arrived` events are published),
///   `value_template: "{{ value_json.tag_id }}"` and a `device` block, so each
///   scan fires HA's `tag_scanned` and the tag shows on HA's Tags page;
/// - one **event entity** per reader for tag removal, retained on
///   `<prefix>/event/<node_id>/<reader>/config`, fed by the reader's
///   `tag.removed` events (its `value_template` turns them into `event_type: tag_removed`).
///
/// The same configs are published again whenever HA announces itself
/// (`<prefix>/status` = `online`); a retained config found for a reader no
/// longer in the config is cleared with an empty retained message.
public struct HomeAssistantDiscovery: Sendable, Equatable {
    /// HA's discovery prefix (`homeassistant`).
    public var prefix: String
    /// The `<node_id>` topic level: this tagrouter, from its client id.
    public var nodeID: String
    /// The first level of the default event topics (`tagrouter`).
    public var baseTopic: String
    /// Where availability is published, so HA greys the entities out when tagrouter is gone.
    public var availabilityTopic: String?
    public var softwareVersion: String

    public init(prefix: String = "homeassistant", nodeID: String, baseTopic: String = "tagrouter", availabilityTopic: String? = nil, softwareVersion: String) {
        self.prefix = prefix
        self.nodeID = Self.topicID(nodeID)
        self.baseTopic = baseTopic
        self.availabilityTopic = availabilityTopic
        self.softwareVersion = softwareVersion
    }

    /// The event-entity type HA fires when a tag leaves a reader.
    public static let removalEventType = "tag_removed"

    /// HA allows only `[a-zA-Z0-9_-]` in node and object ids; anything else becomes `_`.
    public static func topicID(_ name: String) -> String {
        String(name.unicodeScalars.map { scalar in
            switch scalar {
            case "a"..."z", "A"..."Z", "0"..."9", "_", "-": return Character(scalar)
            default: return "_"
            }
        })
    }

    /// The default topic of `kind` events from `reader` (what `- mqtt: {}` publishes to).
    public func eventTopic(reader: String, kind: TagEvent.Kind) -> String {
        "\(baseTopic)/\(reader)/\(kind.rawValue)"
    }

    /// `<prefix>/<component>/<node_id>/<object_id>/config` for a reader.
    public func configTopic(_ component: String, reader: String) -> String {
        "\(prefix)/\(component)/\(nodeID)/\(Self.topicID(reader))/config"
    }

    /// What to subscribe to: HA's birth message and our own retained configs.
    public var subscriptions: [String] {
        ["\(prefix)/status", "\(prefix)/tag/\(nodeID)/+/config", "\(prefix)/event/\(nodeID)/+/config"]
    }

    /// The retained config messages announcing `readers`, tag scanners first.
    public func configMessages(readers: [String]) -> [MQTTMessage] {
        readers.map { reader in
            MQTTMessage(topic: configTopic("tag", reader: reader), text: JSONValue.object(tagScanner(reader)).serialized(), qos: 1, retain: true)
        } + readers.map { reader in
            MQTTMessage(topic: configTopic("event", reader: reader), text: JSONValue.object(removalEvent(reader)).serialized(), qos: 1, retain: true)
        }
    }

    /// The tag scanner config of one reader (HA `tag.mqtt`).
    public func tagScanner(_ reader: String) -> JSONObject {
        var config = JSONObject()
        config["topic"] = .string(eventTopic(reader: reader, kind: .tagArrived))
        config["value_template"] = "{{ value_json.tag_id }}"
        config["device"] = device(reader)
        return config
    }

    /// The tag-removal event entity of one reader (HA `event.mqtt`).
    public func removalEvent(_ reader: String) -> JSONObject {
        var config = JSONObject()
        config["name"] = "Tag removed"
        config["unique_id"] = .string("\(nodeID)_\(Self.topicID(reader))_\(Self.removalEventType)")
        config["state_topic"] = .string(eventTopic(reader: reader, kind: .tagRemoved))
        config["event_types"] = [.string(Self.removalEventType)]
        config["value_template"] = .string(
            "{{ {'event_type': '\(Self.removalEventType)', 'tag_id': value_json.tag_id, 'dwell_ms': value_json.dwell_ms} | to_json }}")
        config["availability_topic"] = availabilityTopic.map(JSONValue.string)
        config["device"] = device(reader)
        return config
    }

    /// The device both entities of a reader belong to.
    func device(_ reader: String) -> JSONValue {
        var device = JSONObject()
        device["identifiers"] = [.string("tagrouter_\(nodeID)_\(Self.topicID(reader))")]
        device["name"] = .string(reader)
        device["manufacturer"] = "tagrouter"
        device["model"] = "NFC reader"
        device["sw_version"] = .string(softwareVersion)
        return .object(device)
    }

    /// What to publish in answer to `message` from our subscriptions: every
    /// config again when HA comes online; an empty retained message for a
    /// config of a reader that is gone.
    public func replies(to message: MQTTMessage, readers: [String]) -> [MQTTMessage] {
        if message.topic == "\(prefix)/status" {
            return message.text == "online" ? configMessages(readers: readers) : []
        }
        guard !message.payload.isEmpty else { return [] }
        let current = Set(readers.flatMap { [configTopic("tag", reader: $0), configTopic("event", reader: $0)] })
        let ours = message.topic.hasPrefix("\(prefix)/tag/\(nodeID)/") || message.topic.hasPrefix("\(prefix)/event/\(nodeID)/")
        guard ours, message.topic.hasSuffix("/config"), !current.contains(message.topic) else { return [] }
        return [MQTTMessage(topic: message.topic, payload: [], qos: 1, retain: true)]
    }
}
