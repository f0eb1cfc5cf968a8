import Foundation
import Harness
import OrderedJSON
import TestSupport
import Testing

/// Writing tags from MQTT as Home Assistant does it: `tagrouter simulate`,
/// `tagrouter run` with `mqtt: {commands: {token_file: …}}`, a real mosquitto, requests
/// published with `mosquitto_pub`, results read by an independent subscriber,
/// and the tag's new content read back with `tagrouter read` through the daemon.
/// Requests without the token, and floods of them, claim no tap.
@Suite(.timeLimit(.minutes(3)))
struct MQTTWriteEndToEndTests {
    static let request = "tagrouter/front-door/write"
    static let token = "e2e-token-0123456789abcdef"

    /// The config, with the token file beside it (mode 600, as the docs say).
    func config(_ setup: Setup, port: Int) throws -> String {
        let file = setup.directory + "/command-token"
        try "\(Self.token)\n".write(toFile: file, atomically: true, encoding: .utf8)
        chmod(file, 0o600)
        return WriteThroughDaemonTests.config(setup, mqtt: "mqtt: { host: 127.0.0.1, port: \(port), client_id: e2e, commands: {token_file: command-token} }")
    }

    func publish(_ broker: MosquittoBroker, _ payload: String) throws {
        try MosquittoBroker.run("/usr/bin/mosquitto_pub", ["-p", String(broker.port), "-q", "1", "-t", Self.request, "-m", payload])
    }

    /// Until the daemon has subscribed, a request is lost: repeats one that writes nothing until it is answered.
    func waitUntilListening(_ broker: MosquittoBroker, _ results: Subscriber) async throws -> JSONValue {
        var answered: Subscriber.Received?
        for _ in 0..<40 where answered == nil {
            try publish(broker, #"{"token":"\#(Self.token)","id":"probe"}"#)
            answered = try? await results.waitFor(timeout: .milliseconds(500), "the probe's answer") { $0.json["id"] == "probe" }
        }
        return try #require(answered).json
    }

    /// A broker, a subscriber to the results, the simulator and the daemon, once the daemon answers a probe (its answer).
    func start(_ setup: Setup) async throws -> (MosquittoBroker, Subscriber, RunningTool, RunningTool, JSONValue) {
        let broker = try await MosquittoBroker()
        let results = try Subscriber(port: broker.port, filter: Self.request + "/result", qos: 1)
        try await results.waitUntilSubscribed()
        let simulator = try await setup.simulator(pacing: false)
        let daemon = try setup.daemon(config: config(setup, port: broker.port))
        try await daemon.waitForStderr(containing: "control socket ready")
        return (broker, results, simulator, daemon, try await waitUntilListening(broker, results))
    }

    /// The daemon's resident memory in bytes.
    func residentBytes(_ daemon: RunningTool) throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(daemon.pid)/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") })
        return try #require(Int(line.split(separator: " ", omittingEmptySubsequences: true)[1])) * 1024
    }

    /// Publishes the request `fields` with `"id": id` and returns its result; `place`
    /// runs once the daemon waits for a tag.
    func ask(
        _ broker: MosquittoBroker, _ results: Subscriber, id: String, _ fields: String, daemon: RunningTool,
        place: (() async throws -> Void)? = nil
    ) async throws -> JSONValue {
        let waiting = daemon.stderr.count
        try publish(broker, #"{"token":"\#(Self.token)","id":"\#(id)",\#(fields)}"#)
        if let place {
            try await daemon.waitForStderr(containing: "write requested; waiting for a tag", after: waiting)
            try await place()
        }
        return try await results.waitFor("the result of \(id)") { $0.json["id"] == .string(id) }.json
    }

    @Test func aRequestWritesTheNextTagPlacedAndEachRefusalIsAnswered() async throws {
        let setup = try Setup()
        defer { setup.remove() }
        let (broker, results, simulator, daemon, probe) = try await start(setup)
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
        #expect(written.value(atPath: "written.uid") == nil, "others may read the result topic")
        #expect(written.value(atPath: "written.summary") == "wrote 2 records (80 bytes) to ntag215, read back and verified")
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

    /// The issue's attack: requests without the token (a forged write, a flood of them) and a flood
    /// of authenticated ones behind a waiting request. The forged ones claim no tap and are not
    /// answered, the flood leaves one log line per reason and no memory behind, and one request
    /// claims exactly one tap: the tag after it is routed.
    @Test func forgedRequestsClaimNoTapAndFloodsLeaveOneRequestWaiting() async throws {
        let setup = try Setup()
        defer { setup.remove() }
        let started = ContinuousClock.now
        let (broker, results, simulator, daemon, _) = try await start(setup)
        let linesBefore = daemon.stderr.count
        let memoryBefore = try residentBytes(daemon)

        // Of each kind: eight times the messages the daemon's MQTT connection holds unread (256,
        // MQTTConnection.incomingMessageLimit), so the flood backs up into the broker, and far more than the
        // 40 log lines allowed for all of them. What a request may keep is measured in process, on the heap,
        // over 20,000 of each (WriteCommandTests.aFloodOfRequestsClaimsOneTapAndKeepsNothing); here the
        // daemon's resident memory only must not run away. (It was 10,000 each: 30,000 requests, 9 s.)
        let count = 2_000
        let forged = #"{"uri":"https://evil.example/x","timeout":600}"#
        let wrong = #"{"token":"e2e-token-0123456789abcdeF","uri":"https://evil.example/x","timeout":600}"#
        try broker.publishLines(Array(repeating: forged, count: count) + Array(repeating: wrong, count: count), topic: Self.request)
        try publish(broker, #"{"token":"\#(Self.token)","id":"mime","mime":"\#(String(repeating: "m", count: 256))","data":"x"}"#)
        let mime = try await results.waitFor("the mime refusal") { $0.json["id"] == "mime" }.json
        #expect(mime["refused"] == "bad_request")
        try await setup.request(WriteThroughDaemonTests.stranger)
        try await daemon.waitForStdout(containing: "tap 04000000000001")
        let read = try await ToolRun(BuiltProducts.tagrouter.path, ["read", "--timeout", "10", "--control", setup.directory + "/control.sock"], directory: setup.directory)
        #expect(try JSONValue.parse(read.stdout)["text"] == "hello", "the tag was not written: \(read.stdout)")
        try await setup.request(#"{"op":"remove"}"#)

        // One authenticated request waits; a flood of others is refused `busy` and claims nothing.
        try publish(broker, #"{"token":"\#(Self.token)","id":"one","text":"written","timeout":60}"#)
        try await daemon.waitForStderr(containing: "write requested; waiting for a tag", after: linesBefore)
        let again = #"{"token":"\#(Self.token)","id":"again","text":"again","timeout":60}"#
        try broker.publishLines(Array(repeating: again, count: count), topic: Self.request)
        _ = try await results.waitFor(count: count, timeout: .seconds(120)) { $0.json["id"] == "again" && $0.json["refused"] == "busy" }
        try await setup.request(WriteThroughDaemonTests.blank)
        let one = try await results.waitFor("the waiting request's answer") { $0.json["id"] == "one" }.json
        #expect(one["ok"] == true, "\(one)")
        try await setup.request(#"{"op":"remove"}"#)
        try await setup.request(#"{"op":"place","type":"ntag213","uid":"04000000000005","records":[{"text":"next"}]}"#)
        try await daemon.waitForStdout(containing: "tap 04000000000005")
        #expect(daemon.stdout.filter { $0.text.hasPrefix("tap ") }.map(\.text) == ["tap 04000000000001", "tap 04000000000005"])

        let grown = try residentBytes(daemon) - memoryBefore
        #expect(grown < 64 << 20, "resident memory grew by \(grown) bytes over \(3 * count) requests")
        let lines = daemon.stderr.dropFirst(linesBefore).map(\.text)
        #expect(lines.filter { $0.contains("write requested") }.count == 1)
        // One line a minute per reason: bad_request (the probe), unauthenticated, busy.
        let minutes = Int((ContinuousClock.now - started) / .seconds(60))
        let refusals = daemon.stderr.map(\.text).filter { $0.contains("MQTT write request refused") }
        for reason in ["bad_request", "unauthenticated", "busy"] {
            let lines = refusals.filter { $0.contains(#""reason":"\#(reason)""#) }.count
            #expect(lines >= 1 && lines <= 1 + minutes, "\(lines) lines for \(reason) in \(minutes + 1) minute(s): \(refusals)")
        }
        #expect(refusals.count <= 3 * (1 + minutes), "\(refusals)")
        #expect(lines.count < 40, "\(lines.count) log lines for \(3 * count) requests")
        #expect(!results.messages.contains { $0.text.contains("evil.example") || $0.json["id"] == nil }, "nothing forged was answered")

        daemon.signal(SIGTERM)
        #expect(try await daemon.termination().status == .exited(0))
        simulator.signal(SIGTERM)
        _ = try await simulator.termination()
    }
}
