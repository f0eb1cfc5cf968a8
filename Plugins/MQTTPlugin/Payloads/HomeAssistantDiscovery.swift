import OrderedJSON
import TagCore

/// Home Assistant MQTT discovery for the configured readers, as HA documents it
/// (docs/home-assistant.md has the sources):
///
/// - one **tag scanner** per reader, retained on `<prefix>/tag/<node_id>/<reader>/config`
///   with `topic` (where the reader's `tag.arrived` events are published),
///   `value_template: "{{ value_json.tag_id }}"` and a `device` block, so each
///   scan fires HA's `tag_scanned` and the tag shows on HA's Tags page;
/// - one **event entity** per reader, retained on `<prefix>/event/<node_id>/<reader>/config`,
///   whose event types are `tag_tapped`, `tag_held` and `tag_removed`, fed by the
///   gesture messages tagrouter publishes on `<base_topic>/<reader>/gesture` (`gestureMessage`);
/// - two **device triggers** per reader (tap, hold), retained on
///   `<prefix>/device_automation/<node_id>/<reader>_tap|_hold/config`, read from the
///   same gesture topic, so HA's automation editor offers them without YAML;
/// - a **sensor** "Current tag" and a **binary sensor** "Tag present" per reader,
///   on `<prefix>/sensor|binary_sensor/<node_id>/<reader>/config`, both reading the
///   retained state tagrouter keeps on `<base_topic>/<reader>/presence` (`HomeAssistantPresence`).
///
/// Every config carries an `origin` block (tagrouter, its version, the support URL when set).
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
    /// Where HA's device page links for support (`origin.support_url`); none when nil.
    public var supportURL: String?

    public init(
        prefix: String = "homeassistant", nodeID: String, baseTopic: String = "tagrouter", availabilityTopic: String? = nil,
        softwareVersion: String, supportURL: String? = nil
    ) {
        self.prefix = prefix
        self.nodeID = Self.topicID(nodeID)
        self.baseTopic = baseTopic
        self.availabilityTopic = availabilityTopic
        self.softwareVersion = softwareVersion
        self.supportURL = supportURL
    }

    /// The event-entity type HA fires when a tag leaves a reader (the entity's unique id ends in it, as before taps and holds joined).
    public static let removalEventType = "tag_removed"

    /// The event types of a reader's event entity and gesture messages, by the event kind that makes them.
    public static let gestureTypes: KeyValuePairs<TagEvent.Kind, String> = [.tagTapped: "tag_tapped", .tagHeld: "tag_held", .tagRemoved: removalEventType]

    /// The device triggers of each reader: their object-id suffix and the gesture type they fire on.
    static let triggers: [(suffix: String, type: String)] = [("_tap", "tag_tapped"), ("_hold", "tag_held")]

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

    /// Where the reader's taps, holds and removals go for the event entity and the device triggers.
    public func gestureTopic(reader: String) -> String {
        "\(baseTopic)/\(reader)/gesture"
    }

    /// The discovery configs announced per reader, in publishing order: the component
    /// and what follows the reader's name in the object id.
    static let configs: [(component: String, suffix: String)] =
        [("tag", ""), ("event", ""), ("sensor", ""), ("binary_sensor", "")] + triggers.map { ("device_automation", $0.suffix) }

    /// The discovery components, each once.
    static let components = ["tag", "event", "sensor", "binary_sensor", "device_automation"]

    /// `<prefix>/<component>/<node_id>/<object_id>/config` for a reader; `suffix` tells
    /// apart several configs of one component (the device triggers).
    public func configTopic(_ component: String, reader: String, suffix: String = "") -> String {
        "\(prefix)/\(component)/\(nodeID)/\(Self.topicID(reader))\(suffix)/config"
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
    /// gesture event entities, current-tag sensors, tag-present binary sensors and device triggers.
    public func configMessages(readers: [String]) -> [MQTTMessage] {
        Self.configs.flatMap { component, suffix in
            readers.map { reader in
                MQTTMessage(
                    topic: configTopic(component, reader: reader, suffix: suffix),
                    text: JSONValue.object(config(component, suffix, reader)).serialized(), qos: 1, retain: true)
            }
        }
    }

    private func config(_ component: String, _ suffix: String, _ reader: String) -> JSONObject {
        switch component {
        case "tag": return tagScanner(reader)
        case "event": return gestureEvent(reader)
        case "sensor": return currentTagSensor(reader)
        case "binary_sensor": return tagPresentSensor(reader)
        default: return deviceTrigger(reader, type: Self.triggers.first { $0.suffix == suffix }?.type ?? "")
        }
    }

    /// The tag scanner config of one reader (HA `tag.mqtt`).
    public func tagScanner(_ reader: String) -> JSONObject {
        var config = JSONObject()
        config["topic"] = .string(eventTopic(reader: reader, kind: .tagArrived))
        config["value_template"] = "{{ value_json.tag_id }}"
        config["device"] = device(reader)
        config["origin"] = origin
        return config
    }

    /// The gesture event entity of one reader (HA `event.mqtt`): tap, hold and removal.
    /// The gesture messages are already `{"event_type": …}` JSON, so it needs no template.
    public func gestureEvent(_ reader: String) -> JSONObject {
        var config = JSONObject()
        config["name"] = "Tag"
        config["unique_id"] = .string("\(nodeID)_\(Self.topicID(reader))_\(Self.removalEventType)")
        config["state_topic"] = .string(gestureTopic(reader: reader))
        config["event_types"] = .array(Self.gestureTypes.map { .string($0.value) })
        config["availability_topic"] = availabilityTopic.map(JSONValue.string)
        config["device"] = device(reader)
        config["origin"] = origin
        return config
    }

    /// A device trigger of one reader (HA `device_trigger.mqtt`): fires when a gesture
    /// message of `type` arrives, so the automation editor offers "front-door: tag_held".
    public func deviceTrigger(_ reader: String, type: String) -> JSONObject {
        var config = JSONObject()
        config["automation_type"] = "trigger"
        config["topic"] = .string(gestureTopic(reader: reader))
        config["type"] = .string(type)
        config["subtype"] = .string(reader)
        config["value_template"] = "{{ value_json.event_type }}"
        config["payload"] = .string(type)
        config["qos"] = 1
        config["device"] = device(reader)
        config["origin"] = origin
        return config
    }

    /// The message for the event entity and device triggers that `event` makes (a tap, a
    /// hold or a removal; nil for other kinds): its type, the tag's HA tag id, name and UID.
    public func gestureMessage(_ event: TagEvent) -> MQTTMessage? {
        guard let type = Self.gestureTypes.first(where: { $0.key == event.kind })?.value else { return nil }
        var payload = JSONObject()
        payload["event_type"] = .string(type)
        payload["tag_id"] = event.tagID.map(JSONValue.string)
        payload["name"] = event.tag?.name.map(JSONValue.string)
        payload["uid"] = event.tag.map { JSONValue.string($0.uid.hex) }
        payload["dwell_ms"] = event.dwellMs.map { JSONValue.int(Int64($0)) }
        payload["event_id"] = .string(event.id)
        return MQTTMessage(topic: gestureTopic(reader: event.reader), text: JSONValue.object(payload).serialized(), qos: 1, retain: false)
    }

    /// The "Current tag" sensor of one reader (HA `sensor.mqtt`): the tag's name,
    /// HA tag id or UID, empty when none; the last event as attributes.
    public func currentTagSensor(_ reader: String) -> JSONObject {
        var config = presenceEntity(reader, name: "Current tag", id: "current_tag")
        config["value_template"] = "{{ value_json.state }}"
        config["json_attributes_topic"] = .string(presenceTopic(reader: reader))
        config["json_attributes_template"] = "{{ (value_json.event if value_json.event is mapping else {}) | tojson }}"
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
        config["origin"] = origin
        return config
    }

    /// Who announced the entity (HA `origin`): tagrouter, its version, and where to get help when configured.
    var origin: JSONValue {
        var origin = JSONObject()
        origin["name"] = "tagrouter"
        origin["sw_version"] = .string(softwareVersion)
        origin["support_url"] = supportURL.map(JSONValue.string)
        return .object(origin)
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
        let current = Set(readers.flatMap { reader in Self.configs.map { configTopic($0.component, reader: reader, suffix: $0.suffix) } })
        let ours = Self.components.contains { message.topic.hasPrefix("\(prefix)/\($0)/\(nodeID)/") }
        guard ours, message.topic.hasSuffix("/config"), !current.contains(message.topic) else { return [] }
        return [MQTTMessage(topic: message.topic, payload: [], qos: 1, retain: true)]
    }
}
