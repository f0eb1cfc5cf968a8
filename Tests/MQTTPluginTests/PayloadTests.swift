import Foundation
import OrderedJSON
import TagCore
import TagRouter
import Testing
@testable import MQTTPlugin

/// Payloads byte for byte: Home Assistant discovery, Tasmota's PN532 shape,
/// default and templated topics.
struct PayloadTests {
    static let arrived = TagEvent(
        kind: .tagArrived, id: "e1", time: Date(timeIntervalSince1970: 1_547_144_604), reader: "front door",
        tag: TagInfo(uid: TagUID("94:d8:fc:5f")!, type: "mifare-classic-1k"), text: "ILOVETASMOTA")

    @Test func homeAssistantTagScannerConfig() {
        let discovery = HomeAssistantDiscovery(nodeID: "tagrouter-pi", availabilityTopic: "tagrouter/tagrouter-pi/status", softwareVersion: "0.1.0")
        let messages = discovery.configMessages(readers: ["front door"])
        #expect(messages.map(\.topic) == [
            "homeassistant/tag/tagrouter-pi/front_door/config",
            "homeassistant/event/tagrouter-pi/front_door/config",
            "homeassistant/sensor/tagrouter-pi/front_door/config",
            "homeassistant/binary_sensor/tagrouter-pi/front_door/config",
            "homeassistant/device_automation/tagrouter-pi/front_door_tap/config",
            "homeassistant/device_automation/tagrouter-pi/front_door_hold/config",
        ])
        #expect(messages.allSatisfy { $0.retain && $0.qos == 1 })
        let device = #""device":{"identifiers":["tagrouter_tagrouter-pi_front_door"],"name":"front door","manufacturer":"tagrouter","model":"NFC reader","sw_version":"0.1.0"}"#
        let origin = #""origin":{"name":"tagrouter","sw_version":"0.1.0"}"#
        #expect(messages[0].text == #"{"topic":"tagrouter/front door/tag.arrived","value_template":"{{ value_json.tag_id }}","# + device + "," + origin + "}")
        #expect(messages[1].text == #"{"name":"Tag","unique_id":"tagrouter-pi_front_door_tag_removed","state_topic":"tagrouter/front door/gesture","#
            + #""event_types":["tag_tapped","tag_held","tag_removed"],"availability_topic":"tagrouter/tagrouter-pi/status","# + device + "," + origin + "}")
        #expect(messages[4].text == #"{"automation_type":"trigger","topic":"tagrouter/front door/gesture","type":"tag_tapped","subtype":"front door","#
            + #""value_template":"{{ value_json.event_type }}","payload":"tag_tapped","qos":1,"# + device + "," + origin + "}")
        #expect(messages[5].text.contains(#""type":"tag_held","subtype":"front door","value_template":"{{ value_json.event_type }}","payload":"tag_held""#))
    }

    /// Every discovery config says who announced it, with the support link when one is configured.
    @Test func everyConfigCarriesTheOrigin() throws {
        let discovery = HomeAssistantDiscovery(nodeID: "pi", softwareVersion: "0.1.0", supportURL: "https://tagrouter.example/help")
        let configs = try discovery.configMessages(readers: ["desk"]).map { try JSONValue.parse($0.text) }
        #expect(configs.count == 6)
        for config in configs {
            #expect(config["origin"] == ["name": "tagrouter", "sw_version": "0.1.0", "support_url": "https://tagrouter.example/help"])
        }
    }

    /// Taps, holds and removals become gesture messages the event entity and the device
    /// triggers read; arrivals and reader events do not.
    @Test func gestureMessages() throws {
        let discovery = HomeAssistantDiscovery(nodeID: "pi", softwareVersion: "0.1.0")
        let arrival = TagEvent(kind: .tagArrived, id: "a1", reader: "desk", tag: TagInfo(uid: TagUID("04a224b2c35e80")!, type: "ntag215", name: "abbey-road"))
        #expect(discovery.gestureMessage(arrival) == nil)
        #expect(discovery.gestureMessage(TagEvent(kind: .readerConnected, reader: "desk")) == nil)
        let held = try #require(discovery.gestureMessage(arrival.following(.tagHeld)))
        #expect(held.topic == "tagrouter/desk/gesture" && held.qos == 1 && !held.retain)
        let payload = try JSONValue.parse(held.text)
        #expect(payload["event_type"] == "tag_held")
        #expect(payload["tag_id"] == "04-A2-24-B2-C3-5E-80")
        #expect(payload["name"] == "abbey-road")
        #expect(payload["uid"] == "04a224b2c35e80")
        #expect(try JSONValue.parse(try #require(discovery.gestureMessage(arrival.following(.tagTapped))).text)["event_type"] == "tag_tapped")
        let removed = try JSONValue.parse(try #require(discovery.gestureMessage(arrival.following(.tagRemoved, dwellMs: 900))).text)
        #expect(removed["event_type"] == "tag_removed" && removed["dwell_ms"] == 900)
    }

    @Test func aBadSupportURLIsAConfigError() {
        #expect(throws: ConfigErrors.self) {
            try MQTTSection(try ConfigValue.parse("{home_assistant: {discovery: true, support_url: tagrouter.example}}", spec: MQTTSection.spec, path: "mqtt"), readers: ["a"])
        }
    }

    @Test func homeAssistantPresenceEntities() {
        let discovery = HomeAssistantDiscovery(nodeID: "pi", availabilityTopic: "tagrouter/pi/status", softwareVersion: "0.1.0")
        let messages = discovery.configMessages(readers: ["desk"])
        let device = #""device":{"identifiers":["tagrouter_pi_desk"],"name":"desk","manufacturer":"tagrouter","model":"NFC reader","sw_version":"0.1.0"}"#
        let origin = #""origin":{"name":"tagrouter","sw_version":"0.1.0"}"#
        #expect(messages[2].text == #"{"name":"Current tag","unique_id":"pi_desk_current_tag","state_topic":"tagrouter/desk/presence","availability_topic":"tagrouter/pi/status","#
            + device + "," + origin + #","value_template":"{{ value_json.state }}","json_attributes_topic":"tagrouter/desk/presence","#
            + #""json_attributes_template":"{{ (value_json.event if value_json.event is mapping else {}) | tojson }}","icon":"mdi:nfc-variant"}"#)
        #expect(messages[3].text == #"{"name":"Tag present","unique_id":"pi_desk_tag_present","state_topic":"tagrouter/desk/presence","availability_topic":"tagrouter/pi/status","#
            + device + "," + origin + #","value_template":"{{ 'ON' if value_json.present else 'OFF' }}"}"#)
    }

    /// Before any event the attributes are an empty object, never null (HA: "JSON result was not a dictionary").
    @Test func presenceBeforeTheFirstEventHasObjectAttributes() {
        #expect(ReaderPresence().payload == ["state": "", "present": false, "event": .object(JSONObject())])
    }

    @Test func readerPresenceShowsTheNewestTagStillThere() {
        let a = TagEvent(kind: .tagArrived, reader: "desk", tag: TagInfo(uid: TagUID("04a1")!, type: "ntag215", name: "abbey-road"))
        let b = TagEvent(kind: .tagArrived, reader: "desk", tag: TagInfo(uid: TagUID("04b2")!, type: "ntag215"), uri: TagEvent.homeAssistantTagPrefix + "front-door")
        var presence = ReaderPresence()
        var states: [JSONValue?] = []
        for event in [a, b, b.following(.tagRemoved, dwellMs: 5), a.following(.tagTapped), TagEvent(kind: .readerConnected, reader: "desk"), a.following(.tagRemoved, dwellMs: 9)] {
            if presence.apply(event) { states.append(presence.payload["state"]) }
        }
        #expect(states == ["abbey-road", "front-door", "abbey-road", "abbey-road", ""])
        #expect(presence.apply(a) && presence.apply(TagEvent(kind: .readerDisconnected, reader: "desk")))
        #expect(presence.payload["present"] == false)
    }

    @Test func homeAssistantRepliesToBirthAndRemovesGoneReaders() {
        let discovery = HomeAssistantDiscovery(nodeID: "pi", softwareVersion: "0.1.0")
        let birth = discovery.replies(to: MQTTMessage(topic: "homeassistant/status", text: "online"), readers: ["a"])
        #expect(birth == discovery.configMessages(readers: ["a"]))
        #expect(discovery.replies(to: MQTTMessage(topic: "homeassistant/status", text: "offline"), readers: ["a"]).isEmpty)
        let stale = discovery.replies(to: MQTTMessage(topic: "homeassistant/tag/pi/gone/config", text: "{}", retain: true), readers: ["a"])
        #expect(stale == [MQTTMessage(topic: "homeassistant/tag/pi/gone/config", payload: [], qos: 1, retain: true)])
        #expect(discovery.replies(to: MQTTMessage(topic: "homeassistant/tag/pi/a/config", text: "{}"), readers: ["a"]).isEmpty)
        #expect(discovery.replies(to: MQTTMessage(topic: "homeassistant/device_automation/pi/a_hold/config", text: "{}"), readers: ["a"]).isEmpty)
        #expect(discovery.replies(to: MQTTMessage(topic: "homeassistant/device_automation/pi/gone_hold/config", text: "{}"), readers: ["a"]).count == 1)
        #expect(discovery.replies(to: MQTTMessage(topic: "homeassistant/tag/pi/gone/config", payload: []), readers: ["a"]).isEmpty)
        #expect(discovery.replies(to: MQTTMessage(topic: "homeassistant/tag/other/gone/config", text: "{}"), readers: ["a"]).isEmpty)
    }

    @Test func tasmotaPN532Shape() {
        let payload = TasmotaPayload.payload(for: Self.arrived, timeZone: TimeZone(identifier: "UTC")!)
        #expect(payload == #"{"Time":"2019-01-10T18:23:24","PN532":{"UID":"94D8FC5F","DATA":"ILOVETASMOTA"}}"#)
        var removed = Self.arrived
        removed.kind = .tagRemoved
        #expect(TasmotaPayload.payload(for: removed) == nil, "Tasmota publishes nothing on removal")
    }

    static func action(_ yaml: String, baseTopic: String = "tagrouter") throws -> MQTTAction {
        let options = try ConfigValue.parse(yaml, spec: MQTTPlugin.actionSpec, path: "routes[0].actions[0].mqtt")
        let connection = try MQTTPlugin(section: MQTTPlugin.defaultSection(), context: PluginContext(stateDirectory: "/nonexistent", dryRun: true)).connection
        return try MQTTAction(options, connection: connection, baseTopic: baseTopic, hold: .seconds(1))
    }

    @Test func defaultTopicAndPayload() throws {
        let message = try #require(try Self.action("{}").message(for: Delivery(event: Self.arrived, route: "r")))
        #expect(message.topic == "tagrouter/front door/tag.arrived")
        #expect(message.text == Self.arrived.json.serialized())
        #expect(message.qos == 1 && !message.retain)
    }

    @Test func templatedTopicPayloadQoSRetain() throws {
        let action = try Self.action(#"{topic: "home/{{reader}}/{{tag.uid}}", payload: "{{text}}", qos: 2, retain: true}"#)
        let message = try #require(action.message(for: Delivery(event: Self.arrived, route: "r")))
        #expect(message == MQTTMessage(topic: "home/front door/94d8fc5f", text: "ILOVETASMOTA", qos: 2, retain: true))
        #expect(try Self.action(#""a/{{reader}}""#).message(for: Delivery(event: Self.arrived, route: "r"))?.topic == "a/front door")
        #expect(action.describe(Delivery(event: Self.arrived, route: "r")) == "publish to home/front door/94d8fc5f qos 2 retained: ILOVETASMOTA")
    }

    @Test func tasmotaFormatDefaultsToTheTasmotaTopic() throws {
        let action = try Self.action("{payload_format: tasmota}")
        let message = try #require(action.message(for: Delivery(event: Self.arrived, route: "r")))
        #expect(message.topic == "tele/front door/SENSOR")
        #expect(message.text.hasPrefix(#"{"Time":""#) && message.text.hasSuffix(#""PN532":{"UID":"94D8FC5F","DATA":"ILOVETASMOTA"}}"#))
    }

    @Test func tasmotaWithAPayloadIsAConfigError() {
        let error = #expect(throws: ConfigErrors.self) { try Self.action("{payload_format: tasmota, payload: x}") }
        #expect(error?.description.contains("routes[0].actions[0].mqtt.payload") == true)
        #expect(error?.description.contains("keep one") == true)
    }

    @Test func aTopicThatCanNeverBePublishedIsAPermanentFailure() async throws {
        for topic in ["{{uri}}", "home/#", "a/+/b"] {
            let action = try Self.action("{topic: \"\(topic)\"}")
            do {
                try await action.perform(Delivery(event: Self.arrived, route: "r"))
                Issue.record("published to \(topic)")
            } catch {
                guard case .permanent(let reason) = error else {
                    Issue.record("expected a permanent failure for \(topic), got \(error)")
                    continue
                }
                #expect(reason.contains("check the action's topic template"))
            }
        }
    }
}
