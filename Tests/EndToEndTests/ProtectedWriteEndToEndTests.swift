import Foundation
import Harness
import OrderedJSON
import TagCore
import TestSupport
import Testing

/// Password-protected tags through the daemon (docs/protected-tags.md): an MQTT write
/// request with `protect: true` on a real mosquitto protects the tag with the daemon's
/// `tag_password_file`, later requests authenticate with it, a message never carries a
/// password, and the tag really is protected: without the daemon, a write without the
/// password is refused and the tag unchanged, one with the daemon's file works.
@Suite(.timeLimit(.minutes(3)))
struct ProtectedWriteEndToEndTests {
    let mqtt = MQTTWriteEndToEndTests()

    /// A private file in the scratch directory.
    func secret(_ setup: Setup, _ name: String, _ text: String) throws -> String {
        let path = setup.directory + "/" + name
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        chmod(path, 0o600)
        return path
    }

    /// Lifts the tag `uid` and places a copy of it as it is now (its memory, password included) with
    /// the UID's last byte `last`: another UID, so the daemon sees a new arrival, not the same presence.
    func placeCopy(_ setup: Setup, of uid: String, last: UInt8) async throws {
        let dump = try await ToolRun(
            BuiltProducts.tagrouter.path, ["simulate", "--control", setup.control, "--request", #"{"op":"dump","uid":"\#(uid)"}"#], directory: setup.directory)
        guard case .array(let tags)? = try JSONValue.parse(dump.stdout)["tags"], let memory = tags.first?["memory"]?.stringValue else {
            throw TestFailure(description: "no memory in the dump: \(dump.stdout) \(dump.stderr)")
        }
        var image = try #require(TagUID(memory)?.bytes)
        image[8] ^= image[7] ^ last  // BCC1 = UID3 ^ UID4 ^ UID5 ^ UID6
        image[7] = last
        try await setup.request(#"{"op":"remove"}"#)
        try await setup.request(#"{"op":"place","type":"ntag215","image":"\#(TagUID(bytes: image).hex)"}"#)
    }

    /// `tagrouter read` through the daemon or, with `device`, directly: the text on the tag lying there.
    func text(_ setup: Setup, device: String? = nil) async throws -> JSONValue? {
        let place = device.map { ["--device", $0] } ?? ["--control", setup.directory + "/control.sock"]
        let read = try await ToolRun(BuiltProducts.tagrouter.path, ["read", "--timeout", "10"] + place, environment: ["LIBNFC_AUTO_SCAN": "false"], directory: setup.directory)
        #expect(read.status == 0, "\(read.stderr)")
        return try JSONValue.parse(read.stdout)["text"]
    }

    @Test func mqttProtectsWithTheDaemonsPasswordAndOnlyThatPasswordWritesAfterwards() async throws {
        let setup = try Setup()
        defer { setup.remove() }
        _ = try secret(setup, "command-token", MQTTWriteEndToEndTests.token + "\n")
        let password = try secret(setup, "tag-password", "0a1b2c3d 5e6f\n")
        let broker = try await MosquittoBroker()
        let results = try Subscriber(port: broker.port, filter: MQTTWriteEndToEndTests.request + "/result", qos: 1)
        try await results.waitUntilSubscribed()
        let simulator = try await setup.simulator(pacing: false)
        let daemon = try setup.daemon(config: WriteThroughDaemonTests.config(setup, mqtt: """
            mqtt: { host: 127.0.0.1, port: \(broker.port), client_id: e2e, commands: {token_file: command-token} }
            tag_password_file: tag-password
            """))
        try await daemon.waitForStderr(containing: "control socket ready")
        _ = try await mqtt.waitUntilListening(broker, results)

        let carried = try await mqtt.ask(broker, results, id: "carried", #""text":"x","protect":true,"password":"ffffffff0000""#, daemon: daemon)
        #expect(carried["refused"] == "bad_request")
        #expect(carried["error"] == "a write request carries no password: the daemon uses its `tag_password_file`")

        let protected = try await mqtt.ask(broker, results, id: "protect", #""text":"mine","protect":true,"timeout":20"#, daemon: daemon) {
            try await setup.request(WriteThroughDaemonTests.blank)
        }
        #expect(protected["ok"] == true, "\(protected)")
        #expect(protected.value(atPath: "written.protected") == true)
        #expect(protected.value(atPath: "written.summary")?.stringValue?.hasSuffix("read back and verified; writes to it need the password") == true)
        #expect(try await text(setup) == "mine", "reading stays open")

        // The next request for the protected tag authenticates with the daemon's password.
        let second = try await mqtt.ask(broker, results, id: "second", #""text":"second","timeout":20"#, daemon: daemon) {
            try await placeCopy(setup, of: "04a224b2c35e80", last: 0x81)
        }
        #expect(second["ok"] == true, "\(second)")
        #expect(try await text(setup) == "second")
        #expect(second.value(atPath: "written.protected") == true)

        // `tagrouter write --password-file` through the daemon sends its own password, which wins: a wrong one is refused.
        let wrong = try await ToolRun(
            BuiltProducts.tagrouter.path,
            ["write", "--password-file", try secret(setup, "wrong", "ffffffff5e6f"), "--text", "vandal", "--timeout", "10", "--control", setup.directory + "/control.sock"],
            directory: setup.directory)
        #expect(wrong.status == 65)
        #expect(wrong.stderr == "error: the NTAG215 refused the password (PWD_AUTH answered NAK): it was protected with another one\n")

        daemon.signal(SIGTERM)
        #expect(try await daemon.termination().status == .exited(0))

        // Without the daemon: the tag really is protected with the daemon's password.
        let device = "pn532_uart:" + setup.link
        let without = try await ToolRun(BuiltProducts.tagrouter.path, ["write", "--device", device, "--text", "vandal"], environment: ["LIBNFC_AUTO_SCAN": "false"])
        #expect(without.status == 65)
        #expect(without.stderr.hasPrefix("error: this NTAG215 is password-protected (writes from page 4 on need its password)"), "\(without.stderr)")
        #expect(try await text(setup, device: device) == "second")
        let with = try await ToolRun(
            BuiltProducts.tagrouter.path, ["write", "--device", device, "--password-file", password, "--text", "third"], environment: ["LIBNFC_AUTO_SCAN": "false"])
        #expect(with.status == 0, "\(with.stderr)")
        #expect(try await text(setup, device: device) == "third")

        simulator.signal(SIGTERM)
        _ = try await simulator.termination()
    }
}
