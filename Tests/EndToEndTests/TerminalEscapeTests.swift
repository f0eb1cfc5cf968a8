import Foundation
import Harness
import OrderedJSON
import SystemKit
import TestSupport
import Testing

/// A tag (or a broker) cannot drive the terminal of whoever watches: `events`,
/// `events --json`, the log (human or JSON) and the `log` action show escape sequences, C1
/// and bidi controls as `\uXXXX` text.
@Suite(.timeLimit(.minutes(2)))
struct TerminalEscapeTests {
    static let uri = "https://x.example/\u{1B}]0;OWNED\u{07}\u{1B}[2J"
    static let type = "ntag\u{9B}31m215"
    static let text = "\u{202E}txt.exe\u{2066}"

    /// No raw escape, C1 or bidi character, and the escaped form of each hostile string.
    func expectEscaped(_ output: String, _ where_: String) {
        let hostile = output.unicodeScalars.filter { $0 != "\n" && TerminalText.isHostile($0) }
        #expect(hostile.isEmpty, "\(where_) printed raw controls \(hostile.map { String($0.value, radix: 16) }): \(output)")
        #expect(output.contains(#"\u001b]0;OWNED\u0007\u001b[2J"#), "\(where_): \(output)")
        #expect(output.contains(#"\u009b31m215"#), "\(where_): \(output)")
        #expect(output.contains(#"\u202etxt.exe\u2066"#), "\(where_): \(output)")
    }

    @Test(arguments: ["human", "json"])
    func eventsAndTheLogEscapeHostileTagContent(logFormat: String) async throws {
        let setup = try Setup()
        defer { setup.remove() }
        let control = setup.directory + "/control.sock"
        let config = setup.directory + "/tagrouter.yaml"
        try """
            state_dir: \(setup.directory)/state
            routes:
              - name: all
                match: { event: tag.arrived }
                actions: [{ log: "tapped {{uri}} {{tag.type}} {{text}}" }]
            """.write(toFile: config, atomically: true, encoding: .utf8)
        let daemon = try RunningTool(
            BuiltProducts.tagrouter.path, ["run", "--config", config, "--events-from", "-", "--control", control, "--log-format", logFormat],
            directory: setup.directory, input: true)
        try await daemon.waitForStderr(containing: "control socket ready")
        let events = try RunningTool(BuiltProducts.tagrouter.path, ["events", "--control", control], directory: setup.directory)
        let json = try RunningTool(BuiltProducts.tagrouter.path, ["events", "--json", "--control", control], directory: setup.directory)
        try await events.waitForStderr(containing: "following the events")
        try await json.waitForStderr(containing: "following the events")

        let event = JSONValue.object(JSONObject([
            "event": "tag.arrived", "reader": "door", "time": "2026-12-02T06:00:00.000Z",
            "tag": .object(JSONObject(["uid": "04a224b2c35e80", "type": .string(Self.type)])),
            "uri": .string(Self.uri), "text": .string(Self.text),
        ]))
        #expect(daemon.send(line: event.serialized()))
        try await events.waitForStdout(containing: "all.0.log")
        let delivered = try await json.waitForStdout(containing: #""type":"action""#)
        try await daemon.waitForStdout(containing: "tapped")
        try await daemon.waitForStderr(containing: "tap on door")

        expectEscaped(events.stdout.map(\.text).joined(separator: "\n"), "events")
        let lines = json.stdout.map(\.text)
        expectEscaped(lines.joined(separator: "\n"), "events --json")
        // The JSON stays JSON, with the tag's own strings in it.
        let record = try JSONValue.parse(try #require(lines.first { $0.contains(#""type":"event""#) }))
        #expect(record.value(atPath: "event.uri") == .string(Self.uri))
        #expect(!delivered.text.isEmpty)
        expectEscaped(daemon.stdout.map(\.text).joined(separator: "\n"), "the log action")
        let activity = daemon.stderr.map(\.text).filter { $0.contains("tap on door") }.joined(separator: "\n")
        #expect(!activity.unicodeScalars.contains(where: TerminalText.isHostile), "the \(logFormat) log: \(activity)")
        #expect(activity.contains(#"https://x.example/\u001b]0;OWNED\u0007\u001b[2J"#) && activity.contains(#"ntag\u009b31m215"#), "\(activity)")
    }
}
