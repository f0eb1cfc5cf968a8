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
///   `tag.removed` events (its `value_template` turns them into `event_type: tag_removed`);
/// - a **sensor** "Current tag" and a **binary sensor** "Tag present" per reader,
///   on `<prefix>/sensor|binary_sensor/<node_id>/<reader>/config`, both reading the
///   retained state tagrouter keeps on `<base_topic>/<reader>/presence` (`HomeAssistantPresence`).
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

    /// Where the reader's presence state is kept (retained), for the sensor and binary sensor.
    public func presenceTopic(reader: String) -> String {
        "\(baseTopic)/\(reader)/presence"
    }

    /// The discovery components announced per reader, in publishing order.
    static let components = ["tag", "event", "sensor", "binary_sensor"]

    /// `<prefix>/<component>/<node_id>/<object_id>/config` for a reader.
    public func configTopic(_ component: String, reader: String) -> String {
        "\(prefix)/\(component)/\(nodeID)/\(Self.topicID(reader))/config"
    }

    /// What to subscribe to: HA's birth message and our own retained configs.
    public var subscriptions: [String] {
        ["\(prefix)/status"] + Self.components.map { "\(prefix)/\($0)/\(nodeID)/+/config" }
    }

    /// True for HA's birth message: HA (re)started and needs everything again.
    public func isBirth(_ message: MQTTMessage) -> Bool {
        message.topic == "\(prefix)/status" && message.text == "online"
    }

    /// The retained config messages announcing `readers`: tag scanners first, then
    /// removal event entities, current-tag sensors and tag-present binary sensors.
    public func configMessages(readers: [String]) -> [MQTTMessage] {
        Self.components.flatMap { component in
            readers.map { reader in
                MQTTMessage(topic: configTopic(component, reader: reader), text: JSONValue.object(config(component, reader)).serialized(), qos: 1, retain: true)
            }
        }
    }

    private func config(_ component: String, _ reader: String) -> JSONObject {
        switch component {
        case "tag": return tagScanner(reader)
        case "event": return removalEvent(reader)
        case "sensor": return currentTagSensor(reader)
        default: return tagPresentSensor(reader)
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

    /// The "Current tag" sensor of one reader (HA `sensor.mqtt`): the tag's name,
    /// HA tag id or UID, empty when none; the last event as attributes.
    public func currentTagSensor(_ reader: String) -> JSONObject {
        var config = presenceEntity(reader, name: "Current tag", id: "current_tag")
        config["value_template"] = "{{ value_json.state }}"
        config["json_attributes_topic"] = .string(presenceTopic(reader: reader))
        config["json_attributes_template"] = "{{ value_json.event | tojson }}"
        config["icon"] = "mdi:nfc-variant"
        return config
    }

    /// The "Tag present" binary sensor of one reader (HA `binary_sensor.mqtt`).
    public func tagPresentSensor(_ reader: String) -> JSONObject {
        var config = presenceEntity(reader, name: "Tag present", id: "tag_present")
        config["value_template"] = "{{ 'ON' if value_json.present else 'OFF' }}"
        return config
    }

    private func presenceEntity(_ reader: String, name: String, id: String) -> JSONObject {
        var config = JSONObject()
        config["name"] = .string(name)
        config["unique_id"] = .string("\(nodeID)_\(Self.topicID(reader))_\(id)")
        config["state_topic"] = .string(presenceTopic(reader: reader))
        config["availability_topic"] = availabilityTopic.map(JSONValue.string)
        config["device"] = device(reader)
        return config
    }

    /// The device every entity of a reader belongs to.
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
            return isBirth(message) ? configMessages(readers: readers) : []
        }
        guard !message.payload.isEmpty else { return [] }
        let current = Set(readers.flatMap { reader in Self.components.map { configTopic($0, reader: reader) } })
        let ours = Self.components.contains { message.topic.hasPrefix("\(prefix)/\($0)/\(nodeID)/") }
        guard ours, message.topic.hasSuffix("/config"), !current.contains(message.topic) else { return [] }
        return [MQTTMessage(topic: message.topic, payload: [], qos: 1, retain: true)]
    }
}
