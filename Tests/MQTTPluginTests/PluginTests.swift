import Foundation
import Harness
import OrderedJSON
import TagCore
import TagRouter
import TestSupport
import Testing
@testable import MQTTPlugin

/// The plugin as the router drives it, against a real mosquitto: discovery,
/// availability, actions, HA's birth message, stale readers, a broker that is down.
@Suite(.timeLimit(.minutes(2)))
struct PluginTests {
    static func plugin(_ yaml: String, readers: [String] = ["front-door"]) throws -> MQTTPlugin {
        let section = try ConfigValue.parse(yaml, spec: MQTTSection.spec, path: "mqtt")
        let context = PluginContext(stateDirectory: NSTemporaryDirectory(), readers: readers.map { ReaderConfig.testing(name: $0) })
        return try MQTTPlugin(section: section, context: context)
    }

    static func action(_ plugin: MQTTPlugin, _ yaml: String = "{}") throws -> any Action {
        try plugin.makeAction(try ConfigValue.parse(yaml, spec: MQTTPlugin.actionSpec, path: "routes[0].actions[0].mqtt"), route: "r")
    }

    static func tap(_ reader: String, _ kind: TagEvent.Kind = .tagArrived, uid: String = "04a224b2c35e80") -> Delivery {
        Delivery(event: TagEvent(kind: kind, reader: reader, tag: TagInfo(uid: TagUID(uid)!, type: "ntag215"), dwellMs: kind == .tagRemoved ? 1200 : nil), route: "r")
    }

    @Test func discoveryAvailabilityAndEventsEndToEnd() async throws {
        let broker = try await MosquittoBroker()
        // A reader that was configured last time and is gone now.
        try MosquittoBroker.run("/usr/bin/mosquitto_pub", ["-p", String(broker.port), "-r", "-q", "1", "-t", "homeassistant/tag/pi/old-reader/config", "-m", "{}"])
        let watcher = try Subscriber(port: broker.port, filter: "#")
        try await watcher.waitUntilSubscribed()
        let plugin = try Self.plugin("""
            {host: 127.0.0.1, port: \(broker.port), client_id: pi, reconnect_delay: 50ms, home_assistant: {discovery: true}}
            """, readers: ["front-door", "garage"])
        let action = try Self.action(plugin)
        try await plugin.whileRunning {
            try await watcher.waitFor("online") { $0.topic == "tagrouter/pi/status" && $0.text == "online" }
            let tagConfig = try await watcher.waitFor("the tag scanner config") { $0.topic == "homeassistant/tag/pi/garage/config" }
            let config = try JSONValue.parse(tagConfig.text)
            #expect(config["topic"] == "tagrouter/garage/tag.arrived")
            #expect(config["value_template"] == "{{ value_json.tag_id }}")
            #expect(config["device"]?["identifiers"] == ["tagrouter_pi_garage"])
            try await watcher.waitFor("the removal event config") { $0.topic == "homeassistant/event/pi/front-door/config" }
            try await watcher.waitFor("the stale config cleared") { $0.topic == "homeassistant/tag/pi/old-reader/config" && $0.payload.isEmpty }

            try await action.perform(Self.tap("front-door"))
            let event = try await watcher.waitFor("the tag event") { $0.topic == "tagrouter/front-door/tag.arrived" }
            #expect(event.qos == 1)
            #expect(try JSONValue.parse(event.text)["tag_id"] == "04-A2-24-B2-C3-5E-80", "what the scanner's value_template reads")

            let configsBefore = watcher.messages.filter { $0.topic.hasPrefix("homeassistant/tag/pi/front-door") }.count
            try MosquittoBroker.run("/usr/bin/mosquitto_pub", ["-p", String(broker.port), "-t", "homeassistant/status", "-m", "online"])
            _ = try await watcher.waitFor(count: configsBefore + 1) { $0.topic == "homeassistant/tag/pi/front-door/config" }
        }
        try await watcher.waitFor("offline") { $0.topic == "tagrouter/pi/status" && $0.text == "offline" }
        let late = try Subscriber(port: broker.port, filter: "homeassistant/#")
        _ = try await late.waitFor(count: 12) { $0.retained }
        #expect(Set(late.messages.filter(\.retained).map(\.topic)) == [
            "homeassistant/tag/pi/front-door/config", "homeassistant/tag/pi/garage/config",
            "homeassistant/event/pi/front-door/config", "homeassistant/event/pi/garage/config",
            "homeassistant/sensor/pi/front-door/config", "homeassistant/sensor/pi/garage/config",
            "homeassistant/binary_sensor/pi/front-door/config", "homeassistant/binary_sensor/pi/garage/config",
            "homeassistant/device_automation/pi/front-door_tap/config", "homeassistant/device_automation/pi/garage_tap/config",
            "homeassistant/device_automation/pi/front-door_hold/config", "homeassistant/device_automation/pi/garage_hold/config",
        ], "the gone reader's config is no longer retained")
    }

    @Test func aBrokerThatStaysDownIsATargetKnownDown() async throws {
        let port = try MosquittoBroker.freePort()
        let plugin = try Self.plugin("{host: 127.0.0.1, port: \(port), hold: 200ms, reconnect_delay: 50ms}")
        let action = try Self.action(plugin)
        try await plugin.whileRunning {
            do {
                try await action.perform(Self.tap("front-door"))
                Issue.record("delivered with no broker")
            } catch {
                guard case .targetDown(let reason)? = error as? ActionError else {
                    Issue.record("expected a target-down failure (retried, already reported), got \(error)")
                    return
                }
                #expect(reason.contains("not acknowledged within"))
                #expect(reason.contains("cannot reach the MQTT broker at 127.0.0.1:\(port)"))
            }
        }
    }

    /// The password comes from the environment or from a file (relative to the config's
    /// directory); either way the broker, which refuses anonymous clients, lets the event in.
    @Test(arguments: ["password: \"{{env.MQTT_PASSWORD}}\"", "password_file: mqtt-password"])
    func credentialsFromTheEnvironmentOrAFile(password: String) async throws {
        var options = MosquittoBroker.Options()
        options.users = ["reader": "s3cret"]
        let broker = try await MosquittoBroker(options)
        try "s3cret\n".write(toFile: broker.directory.appendingPathComponent("mqtt-password").path, atomically: true, encoding: .utf8)
        chmod(broker.directory.appendingPathComponent("mqtt-password").path, 0o600)  // a secret file is private, or it is refused
        let watcher = try Subscriber(port: broker.port, filter: "tagrouter/#", username: "reader", password: "s3cret")
        try await watcher.waitUntilSubscribed()
        let yaml = "{host: 127.0.0.1, port: \(broker.port), username: reader, \(password), hold: 10s}"
        let context = ConfigContext(environment: ["MQTT_PASSWORD": "s3cret"], directory: broker.directory.path)
        let section = try ConfigValue.parse(yaml, spec: MQTTSection.spec, path: "mqtt", context: context)
        let plugin = try MQTTPlugin(section: section, context: PluginContext(stateDirectory: NSTemporaryDirectory(), readers: []))
        try await plugin.whileRunning {
            try await Self.action(plugin).perform(Self.tap("front-door"))
            let event = try await watcher.waitFor("the tag event") { $0.topic == "tagrouter/front-door/tag.arrived" }
            #expect(try JSONValue.parse(event.text)["tag_id"] == "04-A2-24-B2-C3-5E-80")
        }
    }

    @Test func sectionProblemsAreReportedWithTheirKeys() {
        let error = #expect(throws: ConfigErrors.self) {
            try Self.plugin("{password: secret, keepalive: 2s, tls: {ca_file: /nonexistent/ca.pem}}")
        }
        let text = error?.description ?? ""
        #expect(text.contains("mqtt.password: a password needs a username"))
        #expect(text.contains("mqtt.keepalive: must be at least 5s"))
        #expect(text.contains("mqtt.tls.ca_file: cannot read /nonexistent/ca.pem"))
    }

    @Test func dryRunConnectsToNothing() async throws {
        let section = try ConfigValue.parse("{port: 1}", spec: MQTTSection.spec, path: "mqtt")
        let plugin = try MQTTPlugin(section: section, context: PluginContext(stateDirectory: NSTemporaryDirectory(), dryRun: true))
        try await plugin.whileRunning {
            #expect(plugin.connection.status == .idle)
        }
    }
}

extension PluginTests {
    /// The presence entities against a real broker: their retained configs, the
    /// retained state through place → hold → lift, HA's birth message, a reader that goes away.
    @Test func presenceOfATagOnAReaderReachesHomeAssistant() async throws {
        let broker = try await MosquittoBroker()
        let watcher = try Subscriber(port: broker.port, filter: "#")
        try await watcher.waitUntilSubscribed()
        let plugin = try Self.plugin("{host: 127.0.0.1, port: \(broker.port), client_id: pi, home_assistant: {discovery: true}}", readers: ["desk"])
        try await plugin.whileRunning {

            let sensor = try await watcher.waitFor("the current-tag sensor config") { $0.topic == "homeassistant/sensor/pi/desk/config" }
            #expect(try JSONValue.parse(sensor.text)["state_topic"] == "tagrouter/desk/presence")
            #expect(try JSONValue.parse(sensor.text)["json_attributes_topic"] == "tagrouter/desk/presence")
            let binary = try await watcher.waitFor("the tag-present config") { $0.topic == "homeassistant/binary_sensor/pi/desk/config" }
            #expect(try JSONValue.parse(binary.text)["unique_id"] == "pi_desk_tag_present")
            let empty = try await watcher.waitFor("the empty state at start") { $0.topic == "tagrouter/desk/presence" }
            #expect(try JSONValue.parse(empty.text)["event"] == .object(JSONObject()), "HA's attributes template needs an object: \(empty.text)")

            var arrival = TagEvent(kind: .tagArrived, reader: "desk", tag: TagInfo(uid: TagUID("04a224b2c35e80")!, type: "ntag215", name: "abbey-road"))
            let events = [arrival, arrival.following(.tagHeld), arrival.following(.tagRemoved, dwellMs: 2000)]
            for event in events { plugin.observe(event) }
            let states = try await watcher.waitFor(count: 4) { $0.topic == "tagrouter/desk/presence" }.map { try JSONValue.parse($0.text) }
            #expect(states.map { $0["state"] } == ["", "abbey-road", "abbey-road", ""])
            #expect(states.map { $0["present"] } == [false, true, true, false])
            #expect(states.map { $0["event"]?["event"]?.stringValue } == [nil, "tag.arrived", "tag.held", "tag.removed"])
            #expect(watcher.messages.filter { $0.topic == "tagrouter/desk/presence" }.allSatisfy { $0.qos == 1 })
            // The hold and the removal reach the event entity and the device triggers, without any route.
            let gestures = try await watcher.waitFor(count: 2) { $0.topic == "tagrouter/desk/gesture" }.map { try JSONValue.parse($0.text) }
            #expect(gestures.map { $0["event_type"] } == ["tag_held", "tag_removed"])
            #expect(gestures.map { $0["name"] } == ["abbey-road", "abbey-road"])
            let trigger = try JSONValue.parse(try await watcher.waitFor("the hold trigger") { $0.topic == "homeassistant/device_automation/pi/desk_hold/config" }.text)
            #expect(trigger["topic"] == "tagrouter/desk/gesture" && trigger["payload"] == "tag_held" && trigger["automation_type"] == "trigger")
            let entity = try JSONValue.parse(try await watcher.waitFor("the event entity") { $0.topic == "homeassistant/event/pi/desk/config" }.text)
            #expect(entity["event_types"] == ["tag_tapped", "tag_held", "tag_removed"])
            #expect(entity["origin"]?["name"] == "tagrouter")

            // A tag without a name shows its tag id; HA coming online gets the state again.
            arrival.tag?.name = nil
            plugin.observe(arrival)
            try MosquittoBroker.run("/usr/bin/mosquitto_pub", ["-p", String(broker.port), "-t", "homeassistant/status", "-m", "online"])
            let again = try await watcher.waitFor(count: 6) { $0.topic == "tagrouter/desk/presence" }.map { try JSONValue.parse($0.text)["state"] }
            #expect(Array(again.suffix(2)) == ["04-A2-24-B2-C3-5E-80", "04-A2-24-B2-C3-5E-80"])

            // The reader goes away: cleared, and kept cleared for late subscribers.
            plugin.observe(TagEvent(kind: .readerDisconnected, reader: "desk", message: "unplugged"))
            _ = try await watcher.waitFor(count: 7) { $0.topic == "tagrouter/desk/presence" }
            let late = try Subscriber(port: broker.port, filter: "#")
            let retained = try JSONValue.parse(try await late.waitFor("the retained state") { $0.retained && $0.topic == "tagrouter/desk/presence" }.text)
            _ = try await late.waitFor(count: 2) { $0.retained && $0.topic.hasSuffix("sensor/pi/desk/config") }
            #expect(retained["state"] == "" && retained["present"] == false)
            #expect(retained["event"]?["event"] == "reader.disconnected")
        }
    }
}
