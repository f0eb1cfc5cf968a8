import Foundation
import TagCore
import TestSupport
import Testing

/// Writing tags from MQTT as Home Assistant does it: `tagrouter simulate`,
/// `tagrouter run` with `mqtt: {commands: true}`, a real mosquitto, requests
/// published with `mosquitto_pub`, results read by an independent subscriber,
/// and the tag's new content read back with `tagrouter read` through the daemon.
@Suite(.timeLimit(.minutes(3)))
struct MQTTWriteEndToEndTests {
    static let request = "tagrouter/front-door/write"

    func config(_ setup: Setup, port: Int) -> String {
        WriteThroughDaemonTests.config(setup, mqtt: "mqtt: { host: 127.0.0.1, port: \(port), client_id: e2e, commands: true }")
    }

    func publish(_ broker: MosquittoBroker, _ payload: String) throws {
        try MosquittoBroker.run("/usr/bin/mosquitto_pub", ["-p", String(broker.port), "-q", "1", "-t", Self.request, "-m", payload])
    }

    /// Publishes the request `fields` with `"id": id` and returns its result; `place`
    /// runs once the daemon waits for a tag.
    func ask(
        _ broker: MosquittoBroker, _ results: Subscriber, id: String, _ fields: String, daemon: RunningTool,
        place: (() async throws -> Void)? = nil
    ) async throws -> JSONValue {
        let waiting = daemon.stderr.count
        try publish(broker, #"{"id":"\#(id)",\#(fields)}"#)
        if let place {
            try await daemon.waitForStderr(containing: "write requested; waiting for a tag", after: waiting)
            try await place()
        }
        return try await results.waitFor("the result of \(id)") { $0.json["id"] == .string(id) }.json
    }

    @Test func aRequestWritesTheNextTagPlacedAndEachRefusalIsAnswered() async throws {
        let setup = try Setup()
        defer { setup.remove() }
        let broker = try await MosquittoBroker()
        let results = try Subscriber(port: broker.port, filter: Self.request + "/result", qos: 1)
        try await results.waitUntilSubscribed()
        let simulator = try await setup.simulator(pacing: false)
        let daemon = try setup.daemon(config: config(setup, port: broker.port))
        try await daemon.waitForStderr(containing: "control socket ready")

        // Until the daemon has subscribed, a request is lost: repeat one that writes nothing until it is answered.
        var answered: Subscriber.Received?
        for _ in 0..<40 where answered == nil {
            try publish(broker, #"{"id":"probe"}"#)
            answered = try? await results.waitFor(timeout: .milliseconds(500), "the probe's answer") { _ in true }
        }
        let probe = try #require(answered).json
        #expect(probe["ok"] == false)
        #expect(probe["refused"] == "bad_request")
        #expect(probe["id"] == "probe")
        #expect(probe["reader"] == "front-door")

        // A write: Home Assistant's tag URL with a fresh id, and a text after it.
        let written = try await ask(broker, results, id: "w1", #""ha_tag":true,"text":"Front door","timeout":20"#, daemon: daemon) {
            try await setup.request(WriteThroughDaemonTests.blank)
        }
        #expect(written["ok"] == true, "\(written)")
        #expect(written["id"] == "w1")
        #expect(written.value(atPath: "written.uid") == "04a224b2c35e80")
        #expect(written.value(atPath: "written.records") == 2)
        #expect(written.value(atPath: "written.verified") == true)
        let tagID = try #require(written["tag_id"]?.stringValue)
        let read = try await ToolRun(BuiltProducts.tagrouter.path, ["read", "--timeout", "10", "--control", setup.directory + "/control.sock"], directory: setup.directory)
        #expect(read.status == 0, "\(read.stderr)")
        let event = try JSONValue.parse(read.stdout)
        #expect(event["uri"] == .string("https://www.home-assistant.io/tag/" + tagID))
        #expect(event["text"] == "Front door")
        #expect(event["tag_id"] == .string(tagID))
        try await setup.request(#"{"op":"remove"}"#)

        // Refusals: a lock the config does not allow, no tag in time, too large, read-only.
        let lock = try await ask(broker, results, id: "lock", #""uri":"https://example.com","lock":true"#, daemon: daemon)
        #expect(lock["refused"] == "bad_request")
        #expect(lock["error"] == "locking a tag from MQTT needs `allow_lock: true` in the config's mqtt section")
        let none = try await ask(broker, results, id: "none", #""uri":"https://example.com","timeout":0.3"#, daemon: daemon)
        #expect(none["refused"] == "no_tag")
        let large = try await ask(broker, results, id: "large", #""text":"\#(String(repeating: "x", count: 600))","timeout":20"#, daemon: daemon) {
            try await setup.request(#"{"op":"place","type":"ntag213","uid":"04000000000003","records":[{"text":"keep"}]}"#)
        }
        #expect(large["refused"] == "too_large")
        #expect(large["error"] == "message is 610 bytes; this NTAG213 holds 142")
        try await setup.request(#"{"op":"remove"}"#)
        let locked = try await ask(broker, results, id: "locked", #""text":"new","timeout":20"#, daemon: daemon) {
            try await setup.request(#"{"op":"place","type":"ntag213","uid":"04000000000002","readOnly":true,"records":[{"text":"locked"}]}"#)
        }
        #expect(locked["refused"] == "read_only")

        // None of those tags was routed as a tap; the next one is (another UID: one placed again
        // within `exit_delay` would be the same presence).
        try await setup.request(#"{"op":"remove"}"#)
        try await setup.request(WriteThroughDaemonTests.stranger)
        try await daemon.waitForStdout(containing: "tap 04000000000001")
        #expect(daemon.stdout.filter { $0.text.hasPrefix("tap ") }.map(\.text) == ["tap 04000000000001"])

        daemon.signal(SIGTERM)
        #expect(try await daemon.termination().status == .exited(0))
        simulator.signal(SIGTERM)
        _ = try await simulator.termination()
    }
}
