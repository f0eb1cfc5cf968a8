import Foundation
import Harness
import NDEF
import OrderedJSON
import PN532Sim
import TagCore
import TagKit
import Testing
import TestSupport

/// Every event kind tagrouter produces conforms to docs/event.schema.json: written by
/// `TagEvent.json`, printed by `tagrouter watch` for a real reader (libnfc on the
/// simulator), and passed through `tagrouter run --events-from` to the `log` action.
@Suite struct EventSchemaTests {
    static let uid: [UInt8] = [0x04, 0xA2, 0x24, 0xB2, 0xC3, 0x5E, 0x80]
    static let tag = TagInfo(uid: TagUID(bytes: uid), type: "ntag215", nfcForumType: 2, atqa: [0, 0x44], sak: 0, ndefCapacity: 492, writable: true)

    /// One record of each kind the event's `ndef` can hold.
    static let records: [NDEFRecord] = [
        .uri("https://www.home-assistant.io/tag/front-door"),
        .text("Tür", locale: "de"),
        .smartPoster(SmartPoster(uri: "https://example.com/p", titles: [.init(language: "en", text: "Poster")], action: .exec, size: 42)),
        .wifi(WiFiCredential(ssid: "home", authentication: .wpa2Personal, encryption: .aes, key: "secret")),
        .mime("application/vnd.bluetooth.ep.oob", [0x0E, 0x00, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11, 0x05, 0x09] + Array("Spkr".utf8)),
        .json(#"{"room":"hall"}"#),
        .mime("image/png", [0x89, 0x50]),
        .androidApp("com.example.app"),
        .external("example.com:thing", [1, 2, 3]),
        .absoluteURI("urn:nfc:ext:x"),
        NDEFRecord(tnf: .unknown, id: [0x00, 0xFF], payload: Array(#"{"a":[1,2.5,null,true]}"#.utf8)),
    ]

    static let message = NDEFMessage(records: records)

    /// Each kind, with and without its optional members.
    static let events: [TagEvent] = [
        TagEvent(kind: .tagArrived, reader: "door", tag: tag, ndef: message.json, uri: message.firstURI, text: message.firstText),
        TagEvent(kind: .tagArrived, reader: "door", tag: TagInfo(uid: TagUID(bytes: [1, 2, 3, 4]), type: "mifare-classic-1k")),
        TagEvent(kind: .tagArrived, reader: "door", tag: tag, ndef: NDEFMessage(records: [records[0]]).json,
                 ndefError: "NDEF message: record 2 at byte 37: the record is cut short", uri: "https://www.home-assistant.io/tag/front-door"),
        TagEvent(kind: .tagArrived, reader: "door", tag: tag, ndefError: "tag removed during read"),
        TagEvent(kind: .tagRemoved, reader: "door", tag: tag, dwellMs: 1200),
        TagEvent(kind: .readerConnected, reader: "door", message: "PN532 v1.6 (pn532_uart:/dev/ttyUSB0)"),
        TagEvent(kind: .readerDisconnected, reader: "door", message: "input / output error"),
        TagEvent(kind: .readerDisconnected, reader: "door"),
        TagEvent(kind: .readerError, reader: "door", message: "pn532_uart:/dev/ttyUSB0: could not initialise the reader: timeout"),
        TagEvent(kind: .tagHeld, reader: "door", tag: TagInfo(uid: TagUID(bytes: [4, 0xa2, 0x24]), type: "ntag215", name: "abbey-road", groups: ["music"])),
        TagEvent(kind: .tagTapped, reader: "door", tag: tag, presenceTagID: "front-door"),
        // A keyboard-wedge reader's removal, which it did not see.
        { () -> TagEvent in
            var removed = TagEvent(kind: .tagRemoved, reader: "box", tag: TagInfo(uid: TagUID(bytes: [4, 0xa2, 0x24, 0xb2]), type: "unknown"), dwellMs: 0)
            removed.removalAssumed = true
            return removed
        }(),
        TagEvent(kind: .readerWaiting, reader: "door", message: "reader 'pn532_uart:/dev/ttyUSB0' not found"),
    ]

    @Test func everyKindAsTagEventWritesItConforms() async throws {
        #expect(Set(Self.events.map(\.kind)) == Set(TagEvent.Kind.allCases))
        #expect(try await SchemaCheck.problems(Self.events.map(\.json)) == [])
    }

    /// The check can fail: names from before format 1, `null` for an absent value, a
    /// member on the wrong kind and a missing required member are each reported.
    @Test func theSchemaRejectsWhatVersion1DoesNot() async throws {
        func changed(_ event: TagEvent, _ change: (inout JSONObject) -> Void) -> JSONValue {
            guard case .object(var object) = event.json else { return event.json }
            change(&object)
            return .object(object)
        }
        let problems = try await SchemaCheck.problems([
            changed(Self.events[4]) { $0["dwell_ms"] = nil; $0["dwellMs"] = 1200 },
            changed(Self.events[0]) { $0["text"] = .null },
            changed(Self.events[5]) { $0["uri"] = "https://example.com" },
            changed(Self.events[8]) { $0["message"] = nil },
            changed(Self.events[0]) { $0["time"] = "2026-11-29T15:42:52Z" },
        ])
        #expect(problems.count == 5, "\(problems)")
        #expect(problems.contains { $0.hasPrefix("line 1: at (event): Additional properties are not allowed ('dwellMs' was unexpected)") })
        #expect(problems.contains { $0.hasPrefix("line 2: at text: None is not of type 'string'") })
        #expect(problems.contains { $0.hasPrefix("line 3: at uri: False schema does not allow") })
        #expect(problems.contains { $0.hasPrefix("line 4: at (event): 'message' is a required property") })
        #expect(problems.contains { $0.hasPrefix("line 5: at time: ") })
    }

    @Test func aRealReaderPrintsConformingEvents() async throws {
        let sim = try PN532Simulator(pacing: .none)
        var closed = false
        defer { if !closed { sim.close() } }
        let watch = try RunningTool(BuiltProducts.tagrouter.path, ["watch", "--device", sim.connstring, "--exit-delay", "0"],
                                    environment: ["LIBNFC_AUTO_SCAN": "false"])
        defer { watch.signal(SIGINT) }
        try await watch.waitForStdout(lines: 1)
        sim.place(try Type2Tag(.ntag215, uid: Self.uid, message: Self.message.encoded()))
        try await watch.waitForStdout(lines: 2)
        sim.removeAll()
        try await watch.waitForStdout(lines: 3)
        sim.close()
        closed = true
        let events = try await watch.waitForStdout(lines: 4).map { try JSONValue.parse($0.text) }
        #expect(events.map { $0["event"]?.stringValue } == ["reader.connected", "tag.arrived", "tag.removed", "reader.disconnected"])
        #expect(events[1]["ndef"] == Self.message.json)
        #expect(events[1]["tag_id"] == "front-door")
        #expect(try await SchemaCheck.problems(events) == [])
    }

    @Test func eventsPassedThroughRunConform() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("schema-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let config = directory.appendingPathComponent("tagrouter.yaml")
        let kinds = TagEvent.Kind.allCases.map(\.rawValue).joined(separator: ", ")
        try "routes: [{name: all, match: {event: [\(kinds)]}, actions: [log]}]\nstate_dir: \(directory.path)/state\n".write(to: config, atomically: true, encoding: .utf8)
        let input = Self.events.map { $0.json.serialized() + "\n" }.joined()
        let run = try await ToolRun(BuiltProducts.tagrouter.path, ["run", "--config", config.path, "--events-from", "-"],
                                    directory: directory.path, stdin: Array(input.utf8))
        #expect(run.status == 0, "\(run.stderr)")
        let printed = try run.stdout.split(separator: "\n").map { try #require(JSONValue.parse(String($0))["event"]) }
        #expect(Set(printed) == Set(Self.events.map(\.json)))
        #expect(try await SchemaCheck.problems(printed) == [])
    }
}
