import Foundation
import Harness
import Lifecycle
import OrderedJSON
import SystemKit
import TagCore
import TagRouter
import TagRuntime
import TestSupport
import Testing
@testable import MQTTPlugin

/// The `mqtt` input against a real mosquitto (`mosquitto_pub` publishes as a
/// node or a Tasmota device would): each format, copies of an event dropped,
/// a malformed message skipped and counted — and its config checks.
@Suite(.timeLimit(.minutes(2)))
struct InputTests {
    /// The config of `inputs`; without a `stateDirectory` (of the test's own) a dry run, as `check-config` loads it.
    static func load(_ inputs: String, port: Int = 1883, stateDirectory: String? = nil) throws(ConfigErrors) -> RouterConfig {
        let registry = PluginRegistry([MQTTPlugin.self, LogPlugin.self], sources: [MQTTInput.self])
        return try ConfigLoader(registry: registry, environment: [:], dryRun: stateDirectory == nil).load(text: """
            state_dir: \(stateDirectory ?? NSTemporaryDirectory())
            mqtt: {host: 127.0.0.1, port: \(port), client_id: central, reconnect_delay: 50ms}
            inputs:
            \(inputs)
            routes: [{name: all, actions: [log]}]
            """, file: "test.yaml")
    }

    /// The state folder of a test's daemon: in the broker's private folder, gone with it.
    static func stateDirectory(_ broker: MosquittoBroker) -> String { broker.directory.appendingPathComponent("state").path }

    static func problems(_ inputs: String) -> [String] {
        do {
            _ = try load(inputs)
            return []
        } catch {
            return error.sorted.map(\.description)
        }
    }

    static func publish(_ port: Int, _ topic: String, _ payload: String) throws {
        try MosquittoBroker.run("/usr/bin/mosquitto_pub", ["-p", String(port), "-q", "1", "-t", topic, "-m", payload])
    }

    /// Runs the config's first input into a buffer while `body` publishes and reads,
    /// then stops it as the daemon does: a graceful shutdown (`ServiceGroup`), which
    /// it must finish by itself. `body` starts once the input subscribed, or at once
    /// (`subscribed: false`: a persistent session's messages come before the SUBACK and wait for `body`).
    static func whileReceiving<Result: Sendable>(
        _ inputs: String, on broker: MosquittoBroker, subscribed: Bool = true, buffer capacity: Int = 100,
        _ body: (MQTTInput, EventBuffer) async throws -> Result
    ) async throws -> Result {
        let config = try load(inputs, port: broker.port, stateDirectory: stateDirectory(broker))
        let input = try #require(config.inputs.first?.source as? MQTTInput)
        let buffer = EventBuffer(capacity: capacity)
        let (result, report) = try await whileRunningGracefully(config.inputs[0].service(into: buffer), deadline: .seconds(60)) {
            if subscribed { await input.connection.subscribed() }
            return try await body(input, buffer)
        }
        #expect(report.notFinishedGracefully.isEmpty && report.leftRunning.isEmpty, "the input ended by itself at the graceful shutdown")
        return result
    }

    /// Runs `service` as the `.graceful` member of a group while `body` runs, then
    /// shuts the group down: `body`'s result and the group's report.
    static func whileRunningGracefully<Result: Sendable>(
        _ service: any Service, deadline: Duration, _ body: () async throws -> Result
    ) async throws -> (Result, ServiceGroup.Report) {
        let group = ServiceGroup([.init("input", service, stop: .graceful)], deadlines: .init(graceful: deadline, cancellation: .seconds(30)))
        return try await withThrowingTaskGroup(of: ServiceGroup.Report.self) { running in
            running.addTask { try await group.run() }
            let result: Swift.Result<Result, any Error>
            do { result = .success(try await body()) } catch { result = .failure(error) }
            group.shutdown()
            let report = try #require(await running.next())
            return (try result.get(), report)
        }
    }

    /// The next `count` events in the buffer, each accepted as the router would
    /// (the input reads the next message only then); fails after `timeout`.
    static func next(_ count: Int, from buffer: EventBuffer, timeout: Duration = .seconds(10)) async throws -> [TagEvent] {
        try await withThrowingTaskGroup(of: [TagEvent]?.self) { group in
            group.addTask {
                var events: [TagEvent] = []
                while events.count < count, let entry = await buffer.next() {
                    events.append(entry.event)
                    entry.acceptance?.release()
                }
                return events
            }
            group.addTask {
                try await Task.sleep(for: timeout)
                return nil
            }
            defer { group.cancelAll() }
            guard let events = try await group.next() ?? nil else {
                throw TestFailure(description: "fewer than \(count) events within \(timeout)")
            }
            return events
        }
    }

    @Test func eventsFromAnotherNodeKeepTheirIdReaderAndNodeAndCopiesAreDropped() async throws {
        let broker = try await MosquittoBroker()
        try await Self.whileReceiving(#"- mqtt: {topic: "fleet/+/+/tag.arrived", node: "{{levels.1}}", trust: broker}"#, on: broker) { input, buffer in
            let first = TagEvent(kind: .tagArrived, id: "event-1", reader: "front-door", tag: TagInfo(uid: TagUID("04a224b2")!, type: "ntag215"), uri: "https://example.com/a")
            var second = TagEvent(kind: .tagArrived, id: "event-2", reader: "garage", tag: TagInfo(uid: TagUID("04b1b2b3")!, type: "ntag213"))
            second.node = "relayed-from-pi-3"
            try Self.publish(broker.port, "fleet/pi-1/front-door/tag.arrived", first.json.serialized())
            try Self.publish(broker.port, "fleet/pi-1/front-door/tag.arrived", first.json.serialized())  // a copy: QoS 1 resent it
            try Self.publish(broker.port, "fleet/pi-2/garage/tag.arrived", second.json.serialized())
            let events = try await Self.next(2, from: buffer)
            #expect(events.map(\.id) == ["event-1", "event-2"])
            #expect(events[0].reader == "front-door")
            #expect(events[0].node == "pi-1", "named from the topic")
            #expect(events[0].uri == "https://example.com/a")
            #expect(events[0].tag?.uid.hex == "04a224b2")
            #expect(events[1].node == "relayed-from-pi-3", "an event's own node is kept")
            #expect(events[0].json["node"] == "pi-1")
            #expect(input.counters.duplicates == 1)
            #expect(input.counters.received == 3)
        }
    }

    @Test func tasmotaReadersAreNamedFromTheTopicAndTelemetryIsIgnored() async throws {
        let broker = try await MosquittoBroker()
        try await Self.whileReceiving(#"- mqtt: {topic: "tele/+/SENSOR", format: tasmota, trust: broker}"#, on: broker) { input, buffer in
            try Self.publish(broker.port, "tele/hall-esp/SENSOR", #"{"Time":"2024-05-24T10:23:02","AM2301":{"Temperature":21.3}}"#)
            try Self.publish(broker.port, "tele/hall-esp/SENSOR", #"{"Time":"2024-05-24T10:23:03","PN532":{"UID":"94D8FC5F","DATA":"ILOVETASMOTA"}}"#)
            try Self.publish(broker.port, "tele/gate-esp/SENSOR", #"{"Time":"2024-05-24T10:23:04","RDM6300":{"UID":"0012345678"}}"#)
            let events = try await Self.next(2, from: buffer)
            #expect(events.map(\.kind) == [.tagArrived, .tagArrived])
            #expect(events.map(\.reader) == ["hall-esp", "gate-esp"])
            #expect(events.map(\.node) == ["hall-esp", "gate-esp"])
            #expect(events.map { $0.tag?.uid.hex } == ["94d8fc5f", "0012345678"])
            #expect(events.map { $0.tag?.type } == ["unknown", "em4100"])
            #expect(events[0].text == "ILOVETASMOTA")
            #expect(events[0].tagID == "94-D8-FC-5F")
            #expect(input.counters.ignored == 1)
            #expect(input.counters.malformed == 0)
        }
    }

    @Test func uidPayloadsAndHomeAssistantTagIdsWithTheReaderFromATemplate() async throws {
        let broker = try await MosquittoBroker()
        try await Self.whileReceiving(#"- mqtt: {topic: "nfc/#", format: uid, trust: broker, reader: "door-{{levels.1}}"}"#, on: broker) { _, buffer in
            try Self.publish(broker.port, "nfc/back/scanned", "04:A2:24:B2:C3:5E:80\n")
            try Self.publish(broker.port, "nfc/front/scanned", "3b8ae0f4-5e1c-4d2a-9c41-0a9c7c5b1e11")
            let events = try await Self.next(2, from: buffer)
            #expect(events.map(\.reader) == ["door-back", "door-front"])
            #expect(events[0].tag?.uid.hex == "04a224b2c35e80")
            #expect(events[0].tagID == "04-A2-24-B2-C3-5E-80")
            #expect(events[1].tag == nil)
            #expect(events[1].tagID == "3b8ae0f4-5e1c-4d2a-9c41-0a9c7c5b1e11", "a UUID is an HA tag id, not a 16-byte UID")
            #expect(events[1].json["tag_id"] == "3b8ae0f4-5e1c-4d2a-9c41-0a9c7c5b1e11")
            #expect(events[1].node == nil)
        }
    }

    @Test func malformedMessagesAreCountedAndSkippedAndTheNextOneStillArrives() async throws {
        let broker = try await MosquittoBroker()
        try await Self.whileReceiving(#"- mqtt: {topic: "fleet/+/tag.arrived", trust: broker}"#, on: broker) { input, buffer in
            try Self.publish(broker.port, "fleet/a/tag.arrived", "not json {")
            try Self.publish(broker.port, "fleet/a/tag.arrived", #"{"event":"tag.exploded"}"#)
            try Self.publish(broker.port, "fleet/a/tag.arrived", #"{"event":"tag.arrived","tag":{"uid":"zz"}}"#)
            let good = TagEvent(kind: .tagArrived, id: "after-the-bad-ones", reader: "a", tag: TagInfo(uid: TagUID("04010203")!, type: "ntag215"))
            try Self.publish(broker.port, "fleet/a/tag.arrived", good.json.serialized())
            let events = try await Self.next(1, from: buffer)
            #expect(events.map(\.id) == ["after-the-bad-ones"])
            #expect(input.counters.malformed == 3)
        }
    }

    /// Messages are read in groups — every one waiting, here at most the
    /// broker's window of 5 unacknowledged — and acknowledged together only once
    /// the router accepted every event of the group; the next group is read only
    /// then. While one event of a group waits, nothing more arrives: the broker
    /// holds the rest back for want of PUBACKs, so none went out early.
    @Test func theNextGroupIsReadOnlyOnceEveryEventOfTheGroupBeforeIsAccepted() async throws {
        var options = MosquittoBroker.Options()
        options.maxInflightMessages = 5
        let broker = try await MosquittoBroker(options)
        try await Self.whileReceiving(#"- mqtt: {topic: "fleet/+/tag.arrived", trust: broker}"#, on: broker) { input, buffer in
            let count = 20
            try Self.publishTaps(count, on: broker)
            var ids: [String] = []
            var unaccepted: [Acceptance] = []
            repeat {  // the first group: every message read so far, each acceptance held
                let entry = try #require(await buffer.next())
                ids.append(entry.event.id)
                unaccepted.append(try #require(entry.acceptance))
            } while ids.count < input.connection.received
            #expect(ids.count <= 5, "no more than the broker's window before any PUBACK")
            #expect(input.connection.groups == 1)
            for acceptance in unaccepted.dropLast() { acceptance.release() }
            // A wrong input (a PUBACK before acceptance) would have the next message here well within this wait.
            await #expect(throws: TestFailure.self, "nothing more is read while one event of the group waits") {
                _ = try await Self.next(1, from: buffer, timeout: .milliseconds(500))
            }
            #expect(input.connection.received == ids.count)
            unaccepted.last?.release()
            ids += try await Self.next(count - ids.count, from: buffer).map(\.id)
            #expect(ids == (0..<count).map { "tap-\($0)" })
            #expect(input.connection.groups >= 2, "the rest came in later groups")
        }
    }

    /// What the broker had not been able to hand over while the input was away
    /// — unacknowledged, or published meanwhile — arrives when it is back: the
    /// input's session is persistent by default. A stop reads nothing more and
    /// waits until the router has accepted the group the input holds, then
    /// acknowledges it — also while messages that came behind the group wait
    /// unread on the socket (closing a socket with unread bytes resets the
    /// connection, and the broker's kernel then drops the acknowledgements it
    /// had not read yet).
    @Test func aPersistentSessionKeepsWhatArrivedWhileTheInputWasAway() async throws {
        let broker = try await MosquittoBroker()
        let inputs = #"- mqtt: {topic: "fleet/+/tag.arrived", trust: broker}"#
        try await Self.whileReceiving(inputs, on: broker) { _, _ in }
        // Waiting for the input: the broker writes them right behind its CONNACK.
        try Self.publishTaps(10, on: broker)
        let config = try Self.load(inputs, port: broker.port, stateDirectory: Self.stateDirectory(broker))
        let buffer = EventBuffer(capacity: 100)
        let group = ServiceGroup(
            [.init("input", config.inputs[0].service(into: buffer), stop: .graceful)], deadlines: .init(graceful: .seconds(60), cancellation: .seconds(30)))
        var ids: [String] = []
        let report = try await withThrowingTaskGroup(of: ServiceGroup.Report.self) { running in
            running.addTask {
                defer { buffer.finish() }  // as the daemon's sources do once they have ended
                return try await group.run()
            }
            var entry = try #require(await buffer.next())
            #expect(entry.event.id == "tap-0")
            // Its group is held (not accepted yet): these wait unread on the input's socket when it stops.
            try Self.publishTaps(5, from: 10, on: broker)
            group.shutdown()
            // The router goes on taking events through the stop, as the daemon's does.
            while true {
                ids.append(entry.event.id)
                entry.acceptance?.release()
                guard let next = await buffer.next() else { break }
                entry = next
            }
            return try #require(try await running.next())
        }
        #expect(report.notFinishedGracefully.isEmpty, "the input stopped once what it held was accepted")
        try Self.publishTaps(5, from: 15, on: broker)
        try await Self.whileReceiving(inputs, on: broker, subscribed: false) { _, buffer in
            ids += try await Self.next(20 - ids.count, from: buffer).map(\.id)
        }
        #expect(ids == (0..<20).map { "tap-\($0)" }, "each once, in order: the held group through the stop, the rest after")
    }

    /// A stop while the router takes no more events (its buffer stays full) ends at
    /// the graceful deadline: the input is cancelled, which means stop now. The
    /// group it held is not acknowledged: with a persistent session (the default)
    /// the broker sends it to the next session; without one it is lost, and
    /// counted (and logged).
    @Test(arguments: [true, false])
    func aStopWhileNobodyRoutesEndsAtTheDeadlineWithoutAcknowledgingWhatItHeld(persistent: Bool) async throws {
        let broker = try await MosquittoBroker()
        let inputs = #"- mqtt: {topic: "fleet/+/tag.arrived", trust: broker, persistent_session: \#(persistent)}"#
        let config = try Self.load(inputs, port: broker.port, stateDirectory: Self.stateDirectory(broker))
        let input = try #require(config.inputs.first?.source as? MQTTInput)
        let buffer = EventBuffer(capacity: 1)
        let filler = TagEvent(kind: .tagArrived, id: "filler", reader: "a", tag: TagInfo(uid: TagUID(bytes: [4, 1, 2, 3]), type: "ntag215"))
        #expect(await buffer.send(filler), "the waiting lane is full: every message the input takes waits for room")
        let (held, report) = try await Self.whileRunningGracefully(config.inputs[0].service(into: buffer), deadline: .milliseconds(200)) {
            await input.connection.subscribed()
            try Self.publishTaps(3, on: broker)
            #expect(await eventually { input.connection.received > 0 })
            return input.connection.received
        }
        #expect(report.notFinishedGracefully == ["input"], "cancelled at the graceful deadline")
        #expect(report.leftRunning.isEmpty, "and then it stopped at once")
        #expect(buffer.count == 1, "nothing was sent after the cancellation")
        guard persistent else {
            #expect(input.counters.lost == held, "without a persistent session every message it held is lost, and counted")
            return
        }
        #expect(input.counters.lost == 0)
        let ids = try await Self.whileReceiving(inputs, on: broker, subscribed: false) { _, buffer in
            try await Self.next(3, from: buffer).map(\.id)
        }
        #expect(ids == ["tap-0", "tap-1", "tap-2"], "none was acknowledged: the broker sent them all again")
    }

    /// Publishes `tap-<first>` … as one QoS 1 burst, the way a node does.
    static func publishTaps(_ count: Int, from first: Int = 0, on broker: MosquittoBroker, topic: String = "fleet/a/tag.arrived") throws {
        let lines = (first..<first + count).map {
            TagEvent(kind: .tagArrived, id: "tap-\($0)", reader: "a", tag: TagInfo(uid: TagUID(bytes: [4, UInt8($0 % 256), UInt8($0 / 256)]), type: "ntag215")).json.serialized()
        }
        let file = broker.directory.appendingPathComponent("taps-\(first).jsonl").path
        try (lines.joined(separator: "\n") + "\n").write(toFile: file, atomically: true, encoding: .utf8)
        try MosquittoBroker.run("/bin/sh", ["-c", "mosquitto_pub -p \(broker.port) -q 1 -t \(topic) -l < \(file)"])
    }

    @Test func formatsReadTheirPayloads() throws {
        guard case .event(let event) = try InputFormat.uid.read(Array("0x04A224B2".utf8)) else { Issue.record("no event"); return }
        #expect(event.kind == .tagArrived)
        #expect(event.tag?.uid.hex == "04a224b2")
        let problems: [(InputFormat, String, String)] = [
            (.uid, "", "the payload is empty"),
            (.uid, "two words", "neither a UID nor a Home Assistant tag id"),
            (.tasmota, "[1]", "expected an object"),
            (.tasmota, #"{"PN532":{"UID":12}}"#, "PN532.UID is missing or not a string"),
            (.tasmota, #"{"RDM6300":{"UID":"xyz"}}"#, "RDM6300.UID 'xyz' is not hex digits"),
            (.tagrouter, "{", "not a tagrouter event: not JSON"),
            (.tagrouter, #"{"event":"tag.arrived","time":"yesterday"}"#, "time 'yesterday' is not ISO 8601"),
        ]
        for (format, payload, expected) in problems {
            #expect(throws: InputProblem.self, "\(format) \(payload)") { try format.read(Array(payload.utf8)) }
            do {
                _ = try format.read(Array(payload.utf8))
            } catch {
                #expect(error.description.contains(expected), "\(format) '\(payload)': \(error.description)")
            }
        }
        #expect(throws: InputProblem.self) { try InputFormat.tagrouter.read([UInt8](repeating: 0x20, count: InputFormat.payloadLimit + 1)) }
    }

    @Test func copiesAreDroppedWithinTheWindowOnlyAndMemoryIsBounded() {
        var recent = RecentEventIDs(capacity: 3)
        let start: Int64 = 1_000_000
        let answers = [
            recent.isFirst("a", until: start + 10_000, now: start),
            recent.isFirst("a", until: start + 19_000, now: start + 9_000),
            recent.isFirst("a", until: start + 21_000, now: start + 11_000),  // out of the window: a new event as far as the input can tell
        ] + ["b", "c", "d", "e"].map { recent.isFirst($0, until: start + 22_000, now: start + 12_000) }
        #expect(answers == [true, false, true, true, true, true, true])
        #expect(recent.count == 3, "never more than its capacity")
        let forgotten = recent.isFirst("a", until: start + 22_000, now: start + 12_000)
        #expect(forgotten, "the oldest was forgotten early")
    }

    /// The record every input shares is read back by the next daemon (a restart): ids still in
    /// their window are copies there, the others are forgotten and left out when it is rewritten.
    @Test func theSeenEventsAreReadBackAfterARestart() throws {
        let folder = NSTemporaryDirectory() + "seen-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let start: Int64 = 1_000_000
        do {
            let seen = try SeenEvents.shared(stateDirectory: folder, now: start)
            for (id, until) in [("kept", start + 60_000), ("gone", start + 5_000), ("line\nbreak", start + 60_000)] {
                #expect(seen.isFirst(id, until: until, reception: 0, now: start))
                seen.record(id, until: until, now: start)
            }
            #expect(try SeenEvents.shared(stateDirectory: folder) === seen, "one record per folder while it is open")
        }
        let restarted = try SeenEvents.shared(stateDirectory: folder, now: start + 10_000)
        #expect(!restarted.isFirst("kept", until: start + 70_000, reception: 0, now: start + 10_000))
        #expect(!restarted.isFirst("line\nbreak", until: start + 70_000, reception: 0, now: start + 10_000))
        #expect(restarted.isFirst("gone", until: start + 70_000, reception: 0, now: start + 10_000))
        let lines = try String(contentsOfFile: folder + "/seen-events", encoding: .utf8).split(separator: "\n")
        #expect(lines == ["\(start + 60_000) \(Array("kept".utf8).map { String(format: "%02x", $0) }.joined())",
                          "\(start + 60_000) \(Array("line\nbreak".utf8).map { String(format: "%02x", $0) }.joined())"])
    }

    /// A record in a folder another user could write, or a named pipe in its place, is refused, not used.
    @Test func theSeenEventsAreKeptOnlyWhereNoOneElseCanWrite() throws {
        let folder = NSTemporaryDirectory() + "seen-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        chmod(folder, 0o777)
        #expect(throws: StateFolder.Problem.self) { try SeenEvents.shared(stateDirectory: folder) }
        chmod(folder, 0o700)
        #expect(mkfifo(folder + "/seen-events", 0o600) == 0)
        let error = #expect(throws: StateFolder.Problem.self) { try SeenEvents.shared(stateDirectory: folder) }
        #expect(error?.reason.contains("not a regular file") == true)
    }

    @Test func configProblemsNameTheOptionAndWhatToDo() {
        #expect(Self.problems(#"- mqtt: {topic: "t/+", trust: broker, reader: "x"}"#).contains { $0.contains("inputs[0].mqtt.reader") && $0.contains("tagrouter events name their own reader") })
        #expect(Self.problems(#"- mqtt: {topic: "nfc/#", format: uid, trust: broker}"#).contains { $0.contains("no `+` level to name the reader from") })
        #expect(Self.problems(#"- mqtt: {topic: "t/+", format: uid, trust: broker, reader: "{{uri}}"}"#).contains { $0.contains("unknown variable 'uri'") })
        #expect(Self.problems(#"- mqtt: {topic: "$share/g"}"#).contains { $0.contains("`$share/<group>/<filter>`") })
        #expect(Self.problems(#"- mqtt: {topic: "a/b#"}"#).contains { $0.contains("`#` must be a whole level") })
        #expect(Self.problems(#"- mqtt: {topic: "$share/routers/fleet/+/tag.arrived", trust: broker}"#).isEmpty)
        #expect(Self.problems("- mqtt: tele/+/SENSOR").contains { $0.contains("inputs[0].mqtt: format tagrouter takes signed events only") }, "the short form is the topic")
    }
}
