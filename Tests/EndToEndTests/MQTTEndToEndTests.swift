import Foundation
import Harness
import OrderedJSON
import TestSupport
import Testing

/// The whole product as a user runs it: `tagrouter simulate` (libnfc's
/// `pn532_uart` driver on a pseudo-terminal), `tagrouter run` with an `mqtt`
/// and a `log` route, a real mosquitto, and `mosquitto_sub` as an independent
/// subscriber that sees exactly what Home Assistant would.
@Suite(.timeLimit(.minutes(3)))
struct MQTTEndToEndTests {
    static let haTag = #"{"op":"place","type":"ntag215","uid":"04a224b2c35e80","records":[{"uri":"https://www.home-assistant.io/tag/front-door-key"},{"text":"Front door","lang":"en"}]}"#

    func config(_ setup: Setup, port: Int, extraMQTT: String = "") -> String {
        """
        state_dir: \(setup.directory)/state
        readers:
          - { name: front-door, device: "pn532_uart:\(setup.link)", cooldown: 0s, exit_delay: 200ms }
        mqtt:
          host: 127.0.0.1
          port: \(port)
          client_id: e2e
          home_assistant: { discovery: true }
          \(extraMQTT)
        routes:
          - name: arrivals
            match: { event: tag.arrived }
            actions:
              - mqtt: { topic: "e2e/{{reader}}/{{tag.type}}", qos: 1 }
              - mqtt: {}
              - log: "arrived {{tag.uid}}"
          - name: removals
            match: { event: tag.removed }
            actions:
              - mqtt: { qos: 1 }
              - log: "removed {{tag.uid}}"
        """
    }

    @Test func aTapOnTheSimulatorReachesTheBrokerWithAvailabilityAndDiscovery() async throws {
        let setup = try Setup()
        defer { setup.remove() }
        let broker = try await MosquittoBroker()
        let subscriber = try Subscriber(port: broker.port, filter: "#", qos: 1)
        try await subscriber.waitUntilSubscribed()
        let simulator = try await setup.simulator()
        let daemon = try setup.daemon(config: config(setup, port: broker.port))

        // Availability and discovery as the daemon connects, both retained: a subscriber arriving later gets them.
        try await subscriber.waitFor("online") { $0.topic == "tagrouter/e2e/status" && $0.text == "online" }
        let discovery = try await subscriber.waitFor("the tag scanner's discovery") { $0.topic == "homeassistant/tag/e2e/front-door/config" }
        #expect(discovery.json["topic"] == "tagrouter/front-door/tag.arrived")
        #expect(discovery.json["value_template"] == "{{ value_json.tag_id }}")
        #expect(discovery.json.value(atPath: "device.name") == "front-door")
        #expect(discovery.json.value(atPath: "device.manufacturer") == "tagrouter")
        #expect(discovery.json.value(atPath: "device.identifiers.0")?.stringValue?.isEmpty == false)
        let late = try Subscriber(port: broker.port, filter: "#", qos: 1)
        try await late.waitFor("retained online") { $0.topic == "tagrouter/e2e/status" && $0.text == "online" && $0.retained }
        try await late.waitFor("retained discovery") { $0.topic == discovery.topic && $0.retained && $0.payload == discovery.payload }

        // A tag written by Home Assistant's app, with a Text record after the URI.
        try await setup.request(Self.haTag)
        let arrived = try await subscriber.waitFor("the templated topic") { $0.topic == "e2e/front-door/ntag215" }
        #expect(arrived.qos == 1)
        #expect(arrived.json["event"] == "tag.arrived")
        #expect(arrived.json["reader"] == "front-door")
        #expect(arrived.json.value(atPath: "tag.uid") == "04a224b2c35e80")
        #expect(arrived.json["uri"] == "https://www.home-assistant.io/tag/front-door-key")
        #expect(arrived.json["text"] == "Front door")
        #expect(arrived.json["tag_id"] == "front-door-key")
        // The topic discovery told Home Assistant to read carries the same event.
        let scanned = try await subscriber.waitFor("the scanner topic") { $0.topic == "tagrouter/front-door/tag.arrived" }
        #expect(scanned.json["id"] == arrived.json["id"])
        try await daemon.waitForStdout(containing: "arrived 04a224b2c35e80")

        try await setup.request(#"{"op":"remove"}"#)
        let removed = try await subscriber.waitFor("tag.removed") { $0.topic == "tagrouter/front-door/tag.removed" }
        #expect(removed.qos == 1)
        #expect(removed.json["event"] == "tag.removed")
        #expect(removed.json.value(atPath: "tag.uid") == "04a224b2c35e80")
        try await daemon.waitForStdout(containing: "removed 04a224b2c35e80")

        // A clean stop: exit 0, and the availability topic says offline.
        daemon.signal(SIGTERM)
        #expect(try await daemon.termination().status == .exited(0))
        try await subscriber.waitFor("offline") { $0.topic == "tagrouter/e2e/status" && $0.text == "offline" }
        let status = subscriber.messages.filter { $0.topic == "tagrouter/e2e/status" }.map(\.text)
        #expect(status.last == "offline")
        simulator.signal(SIGTERM)
        _ = try await simulator.termination()
    }

    /// A second daemon on the same config takes the first one's client id: the two must not take it from
    /// each other for ever (each takeover flaps Home Assistant: a retained `offline`, discovery again). The
    /// one taken over again gives up and says so; the other keeps the id, and HA sees it online.
    @Test func aSecondDaemonOnTheSameClientIDDoesNotFightTheFirstForIt() async throws {
        let setup = try Setup()
        defer { setup.remove() }
        let broker = try await MosquittoBroker()
        let config = """
            state_dir: \(setup.directory)/state
            readers: [{ name: front-door, device: "pn532_uart:\(setup.directory)/no-reader" }]
            mqtt: { host: 127.0.0.1, port: \(broker.port), client_id: e2e, home_assistant: { discovery: true } }
            routes: [{ name: all, actions: [log] }]
            """
        let first = try setup.daemon(config: config, control: setup.directory + "/first.sock")
        try await first.waitForStderr(containing: "mqtt connected")
        let second = try setup.daemon(config: config, control: setup.directory + "/second.sock")
        defer {
            first.signal(SIGTERM)
            second.signal(SIGTERM)
        }
        func gaveUp(_ daemon: RunningTool) -> Bool { daemon.stderr.contains { line in line.text.contains("this one stops reconnecting") } }
        let someoneGaveUp = await eventually(within: 60) { gaveUp(first) || gaveUp(second) }
        #expect(someoneGaveUp, "\(first.stderr.suffix(6).map(\.text)) \(second.stderr.suffix(6).map(\.text))")
        let (loser, survivor) = gaveUp(first) ? ("first", "second") : ("second", "first")

        // The survivor keeps the id; the one that gave up says why in its status (DEGRADED).
        let kept = try await ToolRun(BuiltProducts.tagrouter.path, ["status", "--control", setup.directory + "/\(survivor).sock"])
        #expect(kept.stdout.contains("mqtt: 127.0.0.1:\(broker.port) connected"), "\(kept.stdout)")
        let stopped = try await ToolRun(BuiltProducts.tagrouter.path, ["status", "--control", setup.directory + "/\(loser).sock"])
        #expect(stopped.status != 0 && stopped.stdout.contains("DEGRADED") && stopped.stdout.contains("not reconnecting"), "\(stopped.stdout)")
        // Home Assistant, subscribing now, sees the daemon online.
        let late = try Subscriber(port: broker.port, filter: "tagrouter/e2e/status", qos: 1)
        try await late.waitFor("retained online") { $0.retained && $0.text == "online" }
        // Only one gave up.
        #expect(!(gaveUp(first) && gaveUp(second)))
    }

    @Test func tapsWhileTheBrokerIsDownArriveInOrderAfterItRestarts() async throws {
        let setup = try Setup()
        defer { setup.remove() }
        let (broker, subscriber) = try await Subscriber.onRestartableBroker(filter: "#")
        let simulator = try await setup.simulator(pacing: false)
        let daemon = try setup.daemon(config: config(setup, port: broker.port, extraMQTT: "reconnect_delay: 50ms\n  reconnect_delay_max: 200ms"))
        try await subscriber.waitFor("online") { $0.topic == "tagrouter/e2e/status" && $0.text == "online" }

        await broker.stop()
        try await daemon.waitForStderr(containing: "publishing resumes when")
        var logged = 0
        for uid in ["04000000000001", "04000000000002"] {
            try await setup.request(#"{"op":"place","type":"ntag213","uid":"\#(uid)","records":[{"text":"\#(uid)"}]}"#)
            try await daemon.waitForStdout(containing: "arrived \(uid)", after: logged)
            try await setup.request(#"{"op":"remove"}"#)
            try await daemon.waitForStdout(containing: "removed \(uid)", after: logged)
            logged = daemon.stdout.count
        }
        try await broker.start()
        let taps = try await subscriber.waitFor(count: 2) { $0.topic == "e2e/front-door/ntag213" }
        #expect(taps.map { $0.json["text"]?.stringValue } == ["04000000000001", "04000000000002"])
        #expect(taps.allSatisfy { $0.qos == 1 })

        daemon.signal(SIGTERM)
        #expect(try await daemon.termination().status == .exited(0))
        simulator.signal(SIGTERM)
        _ = try await simulator.termination()
    }
}
