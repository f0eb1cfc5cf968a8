import Foundation
import Harness
import NDEF
import OrderedJSON
import PN532Sim
import TagKit
import Testing
import TestSupport

/// `tagrouter read`, `write`, `watch` and `devices` as real processes against the simulator.
@Suite(.serialized) struct ReaderCLITests {
    static let uid: [UInt8] = [0x04, 0xA2, 0x24, 0xB2, 0xC3, 0x5E, 0x80]

    static func simulator(with records: [NDEFRecord]? = nil, _ type: Type2TagType = .ntag215, readOnly: Bool = false) throws -> PN532Simulator {
        let sim = try PN532Simulator(pacing: .none)
        if let records {
            sim.place(try Type2Tag(type, uid: uid, message: NDEFMessage(records: records).encoded(), readOnly: readOnly))
        }
        return sim
    }

    /// `tagrouter <arguments>` run to its end, with libnfc's autoscan off and no
    /// pcscd (not even the PC/SC tests' one, whose socket this process may name).
    static func tagrouter(_ arguments: [String]) async throws -> ToolRun {
        try await ToolRun(
            BuiltProducts.tagrouter.path, arguments, environment: ["LIBNFC_AUTO_SCAN": "false", "PCSCLITE_CSOCK_NAME": "/nonexistent/pcscd.comm"])
    }

    /// The message now on the simulated tag, decoded from its memory.
    static func message(on sim: PN532Simulator) throws -> NDEFMessage? {
        guard let memory = sim.tag(uid: uid)?.memory else { return nil }
        return try NDEFMessage(bytes: Type2Memory.parse(image: memory).content.ndefMessage)
    }

    @Test func readPrintsTheEventOfATagAlreadyLyingThere() async throws {
        let sim = try Self.simulator(with: [.uri("https://example.com/a")])
        defer { sim.close() }
        let run = try await Self.tagrouter(["read", "--device", sim.connstring, "--timeout", "10"])
        #expect(run.status == 0, "\(run.stderr)")
        let event = try JSONValue.parse(run.stdout)
        #expect(event["event"] == "tag.arrived")
        #expect(event.value(atPath: "tag.uid") == "04a224b2c35e80")
        #expect(event.value(atPath: "tag.type") == "ntag215")
        #expect(event["uri"] == "https://example.com/a")
        #expect(!run.stderr.contains("Hold a tag"), "the prompt is for a terminal, not a pipe")
    }

    @Test func readWaitsForATag() async throws {
        let sim = try Self.simulator()
        defer { sim.close() }
        let device = sim.connstring
        async let reading = Self.tagrouter(["read", "--device", device, "--timeout", "20"])
        // The tag comes once the reader polls the empty field (not after a fixed pause the
        // process may not have opened the reader in): the read waited for it.
        #expect(await eventually { sim.counters.commands.keys.contains { $0.hasPrefix("InAutoPoll") || $0.hasPrefix("InListPassiveTarget") } })
        sim.place(try Type2Tag(.ntag213, uid: Self.uid, message: NDEFMessage(records: [.text("late")]).encoded()))
        let read = try await reading
        #expect(read.status == 0, "\(read.stderr)")
        #expect(try JSONValue.parse(read.stdout)["text"] == "late")
    }

    @Test func readTimesOutWithAClearMessage() async throws {
        let sim = try Self.simulator()
        defer { sim.close() }
        let run = try await Self.tagrouter(["read", "--device", sim.connstring, "--timeout", "0.5"])
        #expect(run.status == 1)
        #expect(run.stdout.isEmpty)
        #expect(run.stderr.contains("error: no tag arrived on '\(sim.connstring)' within 0.5 s"))
    }

    /// At once: its timeout (10 minutes) is far beyond `ToolRun`'s deadline, which fails a read that waits for it.
    @Test func readFailsAtOnceWithTheReasonWhenTheReaderDoesNotOpen() async throws {
        let run = try await Self.tagrouter(["read", "--device", "pn532_uart:/nonexistent/pn532", "--timeout", "600"])
        #expect(run.status == 1)
        let lines = run.stderr.split(separator: "\n")
        #expect(lines.first == "error: could not open the reader 'pn532_uart:/nonexistent/pn532'", "\(run.stderr)")
        #expect(lines.contains("- /nonexistent/pn532 does not exist: is the reader plugged in (or the simulator running)?"), "\(run.stderr)")
        #expect(run.stderr.hasSuffix("(--wait waits for the reader to appear)\n"))
    }

    @Test func readWithWaitWaitsForTheReaderUntilTheTimeout() async throws {
        let run = try await Self.tagrouter(["read", "--device", "pn532_uart:/nonexistent/pn532", "--timeout", "0.5", "--wait"])
        #expect(run.status == 1)
        #expect(run.stderr.contains("error: could not open the reader 'pn532_uart:/nonexistent/pn532'; `tagrouter devices` says why"))
    }

    @Test func onATerminalReadAsksForATag() async throws {
        let sim = try Self.simulator(with: [.uri("https://example.com/a")])
        defer { sim.close() }
        let command = "\(BuiltProducts.tagrouter.path) read --device \(sim.connstring) --timeout 10"
        let run = try await ToolRun("/usr/bin/script", ["-qec", command, "/dev/null"], environment: ["LIBNFC_AUTO_SCAN": "false"])
        #expect(run.status == 0, "\(run.stdout)")
        #expect(run.stdout.contains("Hold a tag to \(sim.connstring) (Ctrl-C to stop)…"))
        #expect(run.stdout.contains("\"uri\":\"https://example.com/a\""))
    }

    @Test func writeStoresTheRecordsInOrderAndVerifies() async throws {
        let sim = try Self.simulator(with: [.uri("https://old.example")])
        defer { sim.close() }
        let run = try await Self.tagrouter([
            "write", "--device", sim.connstring, "--uri", "https://www.home-assistant.io/tag/door",
            "--text", "Tür", "--lang", "de", "--json", #"{"room":"hall"}"#,
        ])
        let expected = NDEFMessage(records: [
            .uri("https://www.home-assistant.io/tag/door"), .text("Tür", locale: "de"), .json(#"{"room":"hall"}"#),
        ])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == "wrote 3 records (\(expected.encoded().count) bytes) to ntag215 04a224b2c35e80, read back and verified\n")
        #expect(try Self.message(on: sim) == expected)
    }

    static let writableKinds: [any SimulatedTag & Sendable] = [
        try! Type2Tag(.ntag213, uid: uid, message: []),
        try! Type2Tag(.ultralight, uid: uid, message: []),
        try! Type4Tag(uid: uid, message: []),
        try! MifareClassicTag(uid: [0x74, 0x10, 0x37, 0x94], message: []),
        try! Type3Tag(idm: [0x01, 0x2E, 0x3A, 0x4B, 0x5C, 0x6D, 0x7E, 0x8F], message: []),
        try! Type1Tag(uid: uid, message: []),
    ]

    @Test(arguments: 0..<writableKinds.count)
    func writeThenReadBackEveryKindOfTag(kind: Int) async throws {
        let sim = try Self.simulator()
        defer { sim.close() }
        let tag = Self.writableKinds[kind]
        sim.place(tag)
        let write = try await Self.tagrouter(["write", "--device", sim.connstring, "--uri", "https://example.com/d", "--text", "ok"])
        #expect(write.status == 0, "\(tag.typeName): \(write.stderr)")
        #expect(write.stdout.hasPrefix("wrote 2 records"))
        let read = try await Self.tagrouter(["read", "--device", sim.connstring, "--timeout", "10"])
        let event = try JSONValue.parse(read.stdout)
        #expect(event.value(atPath: "tag.type") == .string(tag.typeName))
        #expect(event["uri"] == "https://example.com/d")
        #expect(event["text"] == "ok")
    }

    @Test func writeAppendAddsToWhatIsThere() async throws {
        let sim = try Self.simulator(with: [.text("visitor 1")])
        defer { sim.close() }
        let run = try await Self.tagrouter(["write", "--device", sim.connstring, "--append", "--text", "visitor 2"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try Self.message(on: sim) == NDEFMessage(records: [.text("visitor 1"), .text("visitor 2")]))
    }

    @Test func writeFromAFileTakesJSONOrHex() async throws {
        let sim = try Self.simulator(with: [])
        defer { sim.close() }
        let message = NDEFMessage(records: [.uri("https://example.com/from-file")])
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("write-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let json = directory.appendingPathComponent("message.json")
        try Data(message.json.serialized().utf8).write(to: json)
        #expect(try await Self.tagrouter(["write", "--device", sim.connstring, "--from", json.path]).status == 0)
        #expect(try Self.message(on: sim) == message)
        let hex = directory.appendingPathComponent("message.hex")
        let second = NDEFMessage(records: [.text("from hex")])
        try (Hex.string(second.encoded()) + "\n").write(to: hex, atomically: true, encoding: .utf8)
        #expect(try await Self.tagrouter(["write", "--device", sim.connstring, "--from", hex.path]).status == 0)
        #expect(try Self.message(on: sim) == second)
    }

    @Test("write --from names the byte or the member of a message file that is wrong, and leaves the tag alone", arguments: [
        (#"{"records": [{"tnf": 1, "type": "U",}]}"#, "not JSON at byte 36: expected a member name"),
        (#"{"records": {"tnf": 1}}"#, "records: expected an array of objects, got an object"),
        (#"{"records": [{"tnf": 1, "type": "U", "payload_hex": "0061"}, {"tnf": "1"}]}"#, #"records[1].tnf: expected a whole number from 0 to 6, got a string ("1")"#),
        (#"{"records": [{"tnf": 1, "type_hex": "5", "payload_hex": "00"}]}"#, #"records[0].type_hex: expected hex digits, got a string ("5")"#),
        (#"{"record": []}"#, #"missing "records""#),
    ])
    func writeFromAMalformedFile(_ contents: String, _ expected: String) async throws {
        let sim = try Self.simulator(with: [.text("keep me")])
        defer { sim.close() }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("write-\(UUID().uuidString).json")
        try contents.write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let run = try await Self.tagrouter(["write", "--device", sim.connstring, "--from", file.path])
        #expect(run.status == 65)
        #expect(run.stderr.hasPrefix("error: \(file.path): "), "\(run.stderr)")
        #expect(run.stderr.contains(expected), "\(run.stderr)")
        #expect(try Self.message(on: sim) == NDEFMessage(records: [.text("keep me")]))
    }

    @Test func writeRefusesAMessageThatDoesNotFit() async throws {
        let sim = try Self.simulator(with: [.text("keep me")], .ntag215)
        defer { sim.close() }
        let run = try await Self.tagrouter(["write", "--device", sim.connstring, "--text", String(repeating: "x", count: 600)])
        #expect(run.status == 65)
        #expect(run.stderr == "error: message is 610 bytes; this NTAG215 holds 492\n")
        #expect(try Self.message(on: sim) == NDEFMessage(records: [.text("keep me")]))
    }

    @Test func writeRefusesAReadOnlyTag() async throws {
        let sim = try Self.simulator(with: [.text("locked")], .ntag213, readOnly: true)
        defer { sim.close() }
        let run = try await Self.tagrouter(["write", "--device", sim.connstring, "--text", "new"])
        #expect(run.status == 65)
        #expect(run.stderr == "error: this NTAG213 is read-only\n")
    }

    @Test func writeRefusesWhenNoTagArrives() async throws {
        let sim = try Self.simulator()
        defer { sim.close() }
        let run = try await Self.tagrouter(["write", "--device", sim.connstring, "--timeout", "0.5", "--text", "x"])
        #expect(run.status == 1)
        #expect(run.stderr.contains("error: no tag arrived on '\(sim.connstring)' within 0.5 s"))
    }

    @Test func writeSaysSoWhenTheTagLeavesMidWrite() async throws {
        let sim = try Self.simulator()
        defer { sim.close() }
        // GET_VERSION, the CC and the first page answer; the tag is gone after that.
        let tag = try Type2Tag(.ntag215, uid: Self.uid, message: NDEFMessage(records: [.text("old")]).encoded())
        sim.place(tag, leavingAfterExchanges: 3)
        let run = try await Self.tagrouter(["write", "--device", sim.connstring, "--text", String(repeating: "new ", count: 20)])
        #expect(run.status == 1)
        #expect(run.stderr == "error: the tag left the field before the write was done and verified; hold it still and write again\n")
    }

    @Test func lockNeedsYesThenMakesTheTagReadOnly() async throws {
        let sim = try Self.simulator(with: [.text("old")], .ntag213)
        defer { sim.close() }
        let refused = try await Self.tagrouter(["write", "--device", sim.connstring, "--lock", "--uri", "https://example.com"])
        #expect(refused.status == 64)
        #expect(refused.stderr.hasPrefix("error: --lock makes the tag read-only for ever; add --yes to confirm"))
        #expect(try Self.message(on: sim) == NDEFMessage(records: [.text("old")]))
        let locked = try await Self.tagrouter(["write", "--device", sim.connstring, "--lock", "--yes", "--uri", "https://example.com"])
        #expect(locked.status == 0, "\(locked.stderr)")
        #expect(locked.stdout.hasSuffix("; the tag is now read-only\n"))
        let again = try await Self.tagrouter(["read", "--device", sim.connstring, "--timeout", "10"])
        #expect(try JSONValue.parse(again.stdout).value(atPath: "tag.writable") == false)
    }

    @Test func writeWithoutRecordsIsAUsageError() async throws {
        let run = try await Self.tagrouter(["write", "--device", "pn532_uart:/nonexistent"])
        #expect(run.status == 64)
        #expect(run.stderr.hasPrefix("error: give the records to write"))
    }

    @Test func watchPrintsEveryEventAsAJSONLine() async throws {
        let sim = try Self.simulator()
        defer { sim.close() }
        let watch = try RunningTool(BuiltProducts.tagrouter.path, ["watch", "--device", sim.connstring, "--exit-delay", "0"],
                                    environment: ["LIBNFC_AUTO_SCAN": "false"])
        defer { watch.signal(SIGINT) }
        try await watch.waitForStdout(lines: 1)
        sim.place(try Type2Tag(.ntag213, uid: Self.uid, message: NDEFMessage(records: [.text("hi")]).encoded()))
        try await watch.waitForStdout(lines: 2)
        sim.removeAll()
        let events = try await watch.waitForStdout(lines: 3).map { try JSONValue.parse($0.text) }
        #expect(events.map { $0["event"]?.stringValue } == ["reader.connected", "tag.arrived", "tag.removed"])
        #expect(events[2]["dwell_ms"] != nil)
    }

    @Test func watchWithAConfigNamesTheReaderSoALineMatchesItsRoutes() async throws {
        let sim = try Self.simulator()
        defer { sim.close() }
        let config = "/tmp/tagrouter-watch-\(getpid()).yaml"
        try """
            readers: [{name: front-door, device: "\(sim.connstring)", exit_delay: 0s}]
            routes: [{name: door, match: {reader: front-door}, actions: [log]}]
            """.write(toFile: config, atomically: true, encoding: .utf8)
        defer { unlink(config) }
        let watch = try RunningTool(BuiltProducts.tagrouter.path, ["watch", "--config", config], environment: ["LIBNFC_AUTO_SCAN": "false"])
        defer { watch.signal(SIGINT) }
        try await watch.waitForStdout(lines: 1)
        sim.place(try Type2Tag(.ntag213, uid: Self.uid, message: NDEFMessage(records: [.text("hi")]).encoded()))
        let lines = try await watch.waitForStdout(lines: 2)
        #expect(try JSONValue.parse(lines[1].text)["reader"] == "front-door")
        let explained = try await Self.tagrouter(["check-config", config, "--explain", "--event", lines[1].text])
        #expect(explained.stdout.contains("route door: MATCH"), "\(explained.stdout)")
    }

    @Test func watchNameSetsTheReadersName() async throws {
        let sim = try Self.simulator()
        defer { sim.close() }
        let watch = try RunningTool(BuiltProducts.tagrouter.path, ["watch", "--device", sim.connstring, "--name", "desk"],
                                    environment: ["LIBNFC_AUTO_SCAN": "false"])
        defer { watch.signal(SIGINT) }
        let connected = try await watch.waitForStdout(lines: 1)
        #expect(try JSONValue.parse(connected[0].text)["reader"] == "desk")
    }

    @Test func devicesListsTheSimulator() async throws {
        let sim = try Self.simulator()
        defer { sim.close() }
        let run = try await Self.tagrouter(["devices", "--device", sim.connstring])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("\(sim.connstring)\tPN532 v1.6"))
    }

    @Test func devicesExplainsAReaderThatDoesNotOpen() async throws {
        let run = try await Self.tagrouter(["devices", "--device", "pn532_uart:/nonexistent/pn532"])
        #expect(run.status == 1)
        #expect(run.stdout.contains("pn532_uart:/nonexistent/pn532\tFAILED to open"))
        #expect(run.stdout.contains("- /nonexistent/pn532 does not exist: is the reader plugged in (or the simulator running)?"))
        // Only the settings the user made: libnfc sets LIBNFC_LOG_LEVEL itself once it runs.
        var mine = ProcessInfo.processInfo.environment.filter { $0.key.hasPrefix("LIBNFC_") }
        mine["LIBNFC_AUTO_SCAN"] = "false"
        let expected = mine.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        #expect(run.stdout.contains("- libnfc settings from the environment: \(expected)\n"), "\(run.stdout)")
    }
}

/// `tagrouter devices`, `read` and `write --append` with a `pcsc:` device, as real
/// processes against the tests' pcscd and the simulator as the vpcd card.
@Suite(.serialized) struct PCSCCLITests {
    @Test func devicesListsPcscdsReadersAndReadAndWriteUseThem() async throws {
        let daemon = try PCSCDaemon.shared.get()
        let slot = try await daemon.leaseSlot()
        let card = VPCDCard(port: slot.port)
        defer {
            card.close()
            daemon.release(slot)
        }
        let environment = daemon.environment.merging(["LIBNFC_AUTO_SCAN": "false"]) { $1 }
        let devices = try await ToolRun(BuiltProducts.tagrouter.path, ["devices"], environment: environment)
        #expect(devices.status == 0, "\(devices.stderr)")
        #expect(devices.stdout.contains("pcsc:tagrouter-test 00 00\tPC/SC reader"))

        card.place(try Type2Tag(.ntag215, uid: ReaderCLITests.uid, message: NDEFMessage(records: [.uri("https://example.com/a")]).encoded()))
        let read = try await ToolRun(BuiltProducts.tagrouter.path, ["read", "--device", slot.device, "--timeout", "10"], environment: environment)
        #expect(read.status == 0, "\(read.stderr)")
        let event = try JSONValue.parse(read.stdout)
        #expect(event.value(atPath: "tag.type") == "ntag215")
        #expect(event["uri"] == "https://example.com/a")

        let write = try await ToolRun(
            BuiltProducts.tagrouter.path, ["write", "--device", slot.device, "--timeout", "10", "--text", "added", "--append"], environment: environment)
        #expect(write.status == 0, "\(write.stderr)")
        #expect(write.stdout.contains("wrote 2 records"))
        let memory = try #require(card.tag(uid: ReaderCLITests.uid)?.memory)
        let message = try NDEFMessage(bytes: Type2Memory.parse(image: memory).content.ndefMessage)
        #expect(message.records == [.uri("https://example.com/a"), .text("added")])
    }
}
