import Foundation
import Harness
import OrderedJSON
import TestSupport
import Testing

/// `tagrouter write` and `read` while `tagrouter run` holds the reader: they go
/// through the control socket, the daemon's reader writes the tag, and the tag
/// is not routed as a tap.
@Suite(.timeLimit(.minutes(3)))
struct WriteThroughDaemonTests {
    static let blank = #"{"op":"place","type":"ntag215","uid":"04a224b2c35e80","records":[{"text":"old"}]}"#
    static let stranger = #"{"op":"place","type":"ntag213","uid":"04000000000001","records":[{"text":"hello","lang":"en"}]}"#

    static func config(_ setup: Setup, mqtt: String = "") -> String {
        """
        state_dir: \(setup.directory)/state
        readers:
          - { name: front-door, device: "pn532_uart:\(setup.link)", cooldown: 0s, exit_delay: 200ms }
        \(mqtt)
        routes:
          - name: taps
            match: { event: tag.arrived }
            actions:
              - log: "tap {{tag.uid}}"
          - name: removals
            match: { event: tag.removed }
            actions:
              - log: "removed {{tag.uid}}"
        """
    }

    var control: (Setup) -> String { { $0.directory + "/control.sock" } }

    func tool(_ setup: Setup, _ arguments: [String]) async throws -> ToolRun {
        try await ToolRun(BuiltProducts.tagrouter.path, arguments + ["--control", control(setup)], directory: setup.directory)
    }

    @Test func writeAndReadGoThroughTheDaemonAndTheWrittenTagIsNotRouted() async throws {
        let setup = try Setup()
        defer { setup.remove() }
        let simulator = try await setup.simulator(pacing: false)
        let daemon = try setup.daemon(config: Self.config(setup), control: control(setup))
        try await daemon.waitForStderr(containing: "control socket ready")

        let write = try RunningTool(
            BuiltProducts.tagrouter.path,
            ["write", "--uri", "https://example.com/written", "--text", "through the daemon", "--timeout", "20", "--control", control(setup)],
            directory: setup.directory)
        try await daemon.waitForStderr(containing: "write requested; waiting for a tag")
        try await setup.request(Self.blank)
        #expect(try await write.termination().status == .exited(0), "\(write.stderr.map(\.text))")
        let summary = try await write.waitForStdout(containing: "wrote")
        #expect(summary.text == "wrote 2 records (49 bytes) to ntag215 04a224b2c35e80, read back and verified")
        try await daemon.waitForStderr(containing: "tag written; not routed")

        // Read back through the daemon: the tag lying there is read again.
        let read = try await tool(setup, ["read", "--timeout", "10"])
        #expect(read.status == 0, "\(read.stderr)")
        let event = try JSONValue.parse(read.stdout)
        #expect(event.value(atPath: "tag.uid") == "04a224b2c35e80")
        #expect(event["uri"] == "https://example.com/written")
        #expect(event["text"] == "through the daemon")

        // Lift it, then tap another tag: that one is routed, the written one never was.
        try await setup.request(#"{"op":"remove"}"#)
        try await setup.request(Self.stranger)
        try await daemon.waitForStdout(containing: "tap 04000000000001")
        let routed = daemon.stdout.map(\.text)
        #expect(!routed.contains { $0.contains("04a224b2c35e80") }, "\(routed)")

        daemon.signal(SIGTERM)
        #expect(try await daemon.termination().status == .exited(0))
        simulator.signal(SIGTERM)
        _ = try await simulator.termination()
    }

    @Test func refusalsThroughTheDaemonSayWhyWithTheExitStatusOfTheirKind() async throws {
        let setup = try Setup()
        defer { setup.remove() }
        let simulator = try await setup.simulator(pacing: false)
        let daemon = try setup.daemon(config: Self.config(setup), control: control(setup))
        try await daemon.waitForStderr(containing: "control socket ready")

        let none = try await tool(setup, ["write", "--timeout", "0.5", "--text", "x"])
        #expect(none.status == 1)
        #expect(none.stderr == "error: no tag arrived on reader 'front-door' within 0.5 s\n")

        try await setup.request(#"{"op":"place","type":"ntag213","uid":"04000000000001","records":[{"text":"keep me"}]}"#)
        try await daemon.waitForStdout(containing: "tap 04000000000001")
        let large = try await tool(setup, ["write", "--text", String(repeating: "x", count: 600)])
        #expect(large.status == 65)
        #expect(large.stderr == "error: message is 610 bytes; this NTAG213 holds 142\n")
        try await setup.request(#"{"op":"remove"}"#)

        try await setup.request(#"{"op":"place","type":"ntag213","uid":"04000000000002","readOnly":true,"records":[{"text":"locked"}]}"#)
        try await daemon.waitForStdout(containing: "tap 04000000000002")
        let locked = try await tool(setup, ["write", "--text", "new"])
        #expect(locked.status == 65)
        #expect(locked.stderr == "error: this NTAG213 is read-only\n")

        let unknown = try await tool(setup, ["write", "--reader", "hall", "--text", "new"])
        #expect(unknown.status == 1)
        #expect(unknown.stderr == "error: no reader 'hall' runs in the daemon (its readers: 'front-door')\n")

        // --direct opens the device itself, which the daemon holds.
        let direct = try await tool(setup, ["write", "--direct", "--device", "pn532_uart:\(setup.link)", "--text", "new"])
        #expect(direct.status == 1)
        #expect(direct.stderr.contains("is in use by pid \(daemon.pid)"), "\(direct.stderr)")

        daemon.signal(SIGTERM)
        #expect(try await daemon.termination().status == .exited(0))
        simulator.signal(SIGTERM)
        _ = try await simulator.termination()
    }
}
