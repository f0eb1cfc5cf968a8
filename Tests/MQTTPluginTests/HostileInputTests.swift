import Foundation
import Harness
import Lifecycle
import OrderedJSON
import TagCore
import TagRouter
import TagRuntime
import TestSupport
import Testing
@testable import MQTTPlugin

/// An `mqtt` input against anyone else on the broker, with a real mosquitto:
/// unsigned and forged events, names and groups in the message, stale and
/// future events, events speaking for a local reader, oversized fields, floods
/// of bad messages, and inputs that must not share a client id (issue 18).
@Suite(.timeLimit(.minutes(2)))
struct HostileInputTests {
    static let key = "0123456789abcdef0123456789abcdef"

    /// A config with the `mqtt:` section on `broker`, MQTT 5, the key of node `pi-1` in a file, and `inputs`.
    static func load(
        _ inputs: String, broker: MosquittoBroker, readers: String = "[]", protocolVersion: String = "5"
    ) throws(ConfigErrors) -> RouterConfig {
        let keyFile = broker.directory.appendingPathComponent("pi-1.key").path
        _ = FileManager.default.createFile(atPath: keyFile, contents: Data(key.utf8), attributes: [.posixPermissions: 0o600])
        return try ConfigLoader(registry: PluginRegistry([MQTTPlugin.self, LogPlugin.self], sources: [MQTTInput.self]), environment: [:]).load(text: """
            state_dir: \(broker.directory.appendingPathComponent("state").path)
            readers: \(readers)
            mqtt: {host: 127.0.0.1, port: \(broker.port), client_id: central, reconnect_delay: 50ms, protocol: "\(protocolVersion)"}
            inputs:
            \(inputs.replacingOccurrences(of: "KEYFILE", with: keyFile))
            routes: [{name: all, actions: [log]}]
            """, file: "test.yaml")
    }

    /// Runs every input of `config` into one buffer while `body` publishes and reads.
    static func whileReceiving<Result: Sendable>(
        _ config: RouterConfig, _ body: ([MQTTInput], EventBuffer) async throws -> Result
    ) async throws -> Result {
        let inputs = try config.inputs.map { try #require($0.source as? MQTTInput) }
        let buffer = EventBuffer(capacity: 100)
        let services = config.inputs.map { $0.service(into: buffer) }
        return try await SideBySide(services: services).whileRunning {
            for input in inputs { await input.connection.subscribed() }
            return try await body(inputs, buffer)
        }
    }

    /// Services run side by side until cancelled.
    struct SideBySide: Service {
        let services: [any Service]

        func run() async throws {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for service in services { group.addTask { try await service.run() } }
                try await group.waitForAll()
            }
        }
    }

    /// HMAC-SHA256 of `payload` under `key` as lowercase hex, by openssl's command line (not the code under test).
    static func hmac(_ payload: String, key: String = key) throws -> String { try SignedPublisher.hmac(payload, key: key) }

    /// Publishes with MQTT 5, with the user properties given.
    static func publish(_ broker: MosquittoBroker, _ topic: String, _ payload: String, properties: [(String, String)] = []) throws {
        try SignedPublisher.publish(port: broker.port, topic, payload, properties: properties)
    }

    static func signed(_ payload: String, keyID: String = "pi-1", key: String = key) throws -> [(String, String)] {
        try SignedPublisher.signature(payload, keyID: keyID, key: key)
    }

    static func tap(_ id: String, reader: String = "pi-1-door", time: Date = Date(), uid: String = "04a224b2") -> TagEvent {
        TagEvent(kind: .tagArrived, id: id, time: time, reader: reader, tag: TagInfo(uid: TagUID(uid)!, type: "ntag215"))
    }

    @Test func onlyEventsSignedWithAListedKeyAreRouted() async throws {
        let broker = try await MosquittoBroker()
        let config = try Self.load(#"- mqtt: {topic: "fleet/+/+/tag.arrived", keys: {pi-1: KEYFILE}}"#, broker: broker)
        try await Self.whileReceiving(config) { inputs, buffer in
            let topic = "fleet/pi-1/door/tag.arrived"
            let forged = Self.tap("forged").json.serialized()
            try Self.publish(broker, topic, forged)
            try Self.publish(broker, topic, forged, properties: try Self.signed(forged, key: "not-the-key-of-pi-1-at-all"))
            try Self.publish(broker, topic, forged, properties: try Self.signed(forged, keyID: "pi-9"))
            let good = Self.tap("signed").json.serialized()
            var tampered = try Self.signed(good)
            try Self.publish(broker, topic, good.replacingOccurrences(of: "04a224b2", with: "04a224b3"), properties: tampered)
            tampered[1].1 = String(tampered[1].1.dropLast(2))
            try Self.publish(broker, topic, good, properties: tampered)
            try Self.publish(broker, topic, good, properties: try Self.signed(good))
            let events = try await InputTests.next(1, from: buffer)
            #expect(events.map(\.id) == ["signed"])
            let counters = inputs[0].counters
            #expect(counters.refused(.unsigned) == 1)
            #expect(counters.refused(.badSignature) == 3)
            #expect(counters.refused(.unknownKey) == 1)
            #expect(counters.received == 6)
        }
    }

    /// What an input refused shows in the daemon's status (and so in `tagrouter status` and the metrics).
    @Test func refusalsAreCountedInTheDaemonStatus() async throws {
        let broker = try await MosquittoBroker()
        let config = try Self.load(#"- mqtt: {topic: "fleet/+/+/tag.arrived", keys: {pi-1: KEYFILE}}"#, broker: broker)
        let input = try #require(config.inputs.first?.source as? MQTTInput)
        let observer = DaemonObserver()
        observer.configured(config)
        try await Router(config: config, observer: observer).whileRunning { buffer in
            try await config.inputs[0].service(into: buffer).whileRunning {
                await input.connection.subscribed()
                try Self.publish(broker, "fleet/pi-1/door/tag.arrived", Self.tap("forged").json.serialized())
                try Self.publish(broker, "fleet/pi-1/door/tag.arrived", "not json {")  // unsigned too: refused before it is read
                let counted = await eventually {
                    observer.status.inputs.first?.counts.filter { $0.value > 0 } == [.init("received", 2), .init("refused_unsigned", 2)]
                }
                #expect(counted, "\(observer.status.inputs)")
                #expect(observer.status.inputs.map(\.path) == ["inputs[0]"])
                #expect(observer.status.json["inputs"]?.serialized().contains(#""refused_unsigned":2"#) == true)
            }
        }
    }

    /// A node's `mqtt` action signs with `mqtt.sign`; the router's input takes it, and a plain
    /// subscriber (Home Assistant, Node-RED) still gets the v1 event as the payload, unchanged.
    @Test func theMQTTActionSignsAndPlainSubscribersGetTheEventUnchanged() async throws {
        let broker = try await MosquittoBroker()
        let config = try Self.load(#"- mqtt: {topic: "tagrouter/+/tag.arrived", keys: {pi-1: KEYFILE}}"#, broker: broker)
        let keyFile = broker.directory.appendingPathComponent("pi-1.key").path
        let node = try PluginTests.plugin("""
            {host: 127.0.0.1, port: \(broker.port), client_id: pi-1, reconnect_delay: 50ms, protocol: "5", sign: {key_id: pi-1, key_file: \(keyFile)}}
            """, readers: ["front-door"])
        let action = try PluginTests.action(node)
        let plain = try Subscriber(port: broker.port, filter: "tagrouter/+/tag.arrived")
        try await plain.waitUntilSubscribed()
        try await Self.whileReceiving(config) { _, buffer in
            try await node.whileRunning {
                let delivery = PluginTests.tap("front-door")
                try await action.perform(delivery)
                let events = try await InputTests.next(1, from: buffer)
                #expect(events.map(\.id) == [delivery.event.id])
                let received = try await plain.waitFor("the event") { $0.topic == "tagrouter/front-door/tag.arrived" }
                #expect(received.text == delivery.event.jsonText)
            }
        }
    }

    @Test func namesGroupsAndTimesFromTheMessageAreNotBelievedAndLocalReadersCannotBeSpokenFor() async throws {
        let broker = try await MosquittoBroker()
        let config = try Self.load(
            #"- mqtt: {topic: "fleet/+/+/+", keys: {pi-1: KEYFILE}}"#, broker: broker, readers: "[{name: front-door}]")
        try await Self.whileReceiving(config) { inputs, buffer in
            var named = Self.tap("named")
            named.tag?.name = "annas-key"
            named.tag?.groups = ["kids"]
            let refused: [(TagEvent, InputRefusal)] = [
                (Self.tap("replayed", time: Date(timeIntervalSince1970: 978_307_200)), .tooOld),
                (Self.tap("ahead", time: Date().addingTimeInterval(3600)), .fromTheFuture),
                (Self.tap("speaks-for-a-local-reader", reader: "front-door"), .localReader),
                (TagEvent(kind: .readerDisconnected, id: "unplugs-a-local-reader", reader: "front-door"), .localReader),
                (Self.tap(String(repeating: "x", count: 65)), .malformed),
                (Self.tap("long-uid", uid: String(repeating: "04", count: 11)), .malformed),
                (Self.tap("slash", reader: "a/b"), .malformed),
                (Self.tap("hash", reader: "#"), .malformed),
                (Self.tap("plus", reader: "+"), .malformed),
                (Self.tap("empty", reader: ""), .malformed),
                (Self.tap("escape", reader: "\u{1B}]0;OWNED\u{07}"), .malformed),
                (Self.tap("newline", reader: "a\nb"), .malformed),
                (Self.tap("too-long-a-name", reader: String(repeating: "r", count: 65)), .malformed),
            ]
            for (event, _) in refused {
                let payload = event.json.serialized()
                try Self.publish(broker, "fleet/pi-1/x/y", payload, properties: try Self.signed(payload))
            }
            for event in [named, Self.tap("last")] {
                let payload = event.json.serialized()
                try Self.publish(broker, "fleet/pi-1/x/y", payload, properties: try Self.signed(payload))
            }
            let events = try await InputTests.next(2, from: buffer)
            #expect(events.map(\.id) == ["named", "last"])
            #expect(events[0].tag?.name == nil, "the name comes from the local tags: only")
            #expect(events[0].tag?.groups == [])
            let counters = inputs[0].counters
            for reason in InputRefusal.allCases {
                #expect(counters.refused(reason) == refused.filter { $0.1 == reason }.count, "\(reason)")
            }
        }
    }

    /// Issue 31: a key speaks for the node it belongs to. Signed with pi-1's key, a message that
    /// names pi-2 — in its payload, which used to win over the topic, or in its topic — is refused
    /// and counted, so a route matching `node: pi-2` cannot fire for pi-1's key.
    @Test func aKeySpeaksOnlyForItsOwnNode() async throws {
        let broker = try await MosquittoBroker()
        let otherKey = "fedcba9876543210fedcba9876543210"
        let otherKeyFile = broker.directory.appendingPathComponent("pi-2.key").path
        _ = FileManager.default.createFile(atPath: otherKeyFile, contents: Data(otherKey.utf8), attributes: [.posixPermissions: 0o600])
        let config = try Self.load(
            #"- mqtt: {topic: "fleet/+/+/+", keys: {pi-1: KEYFILE, pi-2: \#(otherKeyFile)}, node: "{{levels.1}}"}"#, broker: broker)
        try await Self.whileReceiving(config) { inputs, buffer in
            var claimsPi2 = Self.tap("payload-claims-pi-2")
            claimsPi2.node = "pi-2"
            let refused = [("fleet/pi-1/door/tag.arrived", claimsPi2), ("fleet/pi-2/door/tag.arrived", Self.tap("topic-claims-pi-2"))]
            for (topic, event) in refused {
                let payload = event.json.serialized()
                try Self.publish(broker, topic, payload, properties: try Self.signed(payload))
            }
            let own = Self.tap("pi-1-itself").json.serialized()
            try Self.publish(broker, "fleet/pi-1/door/tag.arrived", own, properties: try Self.signed(own))
            let other = Self.tap("pi-2-itself").json.serialized()
            try Self.publish(broker, "fleet/pi-2/door/tag.arrived", other, properties: try Self.signed(other, keyID: "pi-2", key: otherKey))
            let events = try await InputTests.next(2, from: buffer)
            #expect(events.map(\.id) == ["pi-1-itself", "pi-2-itself"])
            #expect(events.map(\.node) == ["pi-1", "pi-2"])
            #expect(inputs[0].counters.refused(.wrongNode) == 2)
        }
    }

    /// 500 malformed messages: each counted, one warning line (the next comes a minute later at the earliest).
    @Test func aFloodOfBadMessagesIsCountedAndLoggedOnce() async throws {
        let broker = try await MosquittoBroker()
        let config = try Self.load(#"- mqtt: {topic: "tele/+/SENSOR", format: tasmota, trust: broker}"#, broker: broker)
        try await Self.whileReceiving(config) { inputs, buffer in
            let file = broker.directory.appendingPathComponent("flood.txt").path
            try (String(repeating: "not json {\n", count: 500)).write(toFile: file, atomically: true, encoding: .utf8)
            try MosquittoBroker.run("/bin/sh", ["-c", "mosquitto_pub -p \(broker.port) -q 1 -t tele/esp/SENSOR -l < \(file)"])
            try Self.publish(broker, "tele/esp/SENSOR", #"{"PN532":{"UID":"94D8FC5F"}}"#)
            let events = try await InputTests.next(1, from: buffer)
            #expect(events.map { $0.tag?.uid.hex } == ["94d8fc5f"])
            #expect(inputs[0].counters.malformed == 500)
            #expect(inputs[0].counters.warnings == 1)
        }
    }

    @Test func theWarningThrottleLetsOneLinePerReasonAndMinuteThrough() {
        var throttle = WarningThrottle<InputRefusal>()
        let start = ContinuousClock.now
        #expect(throttle.admit(.unsigned, at: start) == 0)
        #expect(throttle.admit(.unsigned, at: start + .seconds(1)) == nil)
        #expect(throttle.admit(.badSignature, at: start + .seconds(2)) == 0, "each reason on its own")
        #expect(throttle.admit(.unsigned, at: start + .seconds(59)) == nil)
        #expect(throttle.admit(.unsigned, at: start + .seconds(60)) == 2, "the next line says how many were not logged")
    }

    /// Distinct ids of the longest allowed size, far more than fit: the window stays within its bytes.
    @Test func theDedupWindowIsBoundedInBytes() {
        let capacity = 64 << 10
        var recent = RecentEventIDs(byteCapacity: capacity)
        let start: Int64 = 1_000_000
        var firsts = 0
        var largest = 0
        for index in 0..<20_000 {
            let id = String(repeating: "i", count: InputIntake.eventIDLimit - 8) + String(format: "%08d", index)
            if recent.isFirst(id, until: start + 600_000, now: start) { firsts += 1 }
            largest = max(largest, recent.bytes)
        }
        #expect(firsts == 20_000, "every id is new")
        #expect(largest <= capacity, "never more bytes than its capacity")
        #expect(largest > capacity / 2, "it was filled")
        #expect(recent.count <= capacity / (InputIntake.eventIDLimit + RecentEventIDs.entryOverhead))
        let last = String(repeating: "i", count: InputIntake.eventIDLimit - 8) + String(format: "%08d", 19_999)
        let known = !recent.isFirst(last, until: start + 600_000, now: start)
        #expect(known, "the newest ids are still known")
    }

    /// Three inputs of three formats: three client ids, and each message read by the input whose filter it matches.
    @Test func inputsNeverShareAClientIDAndEachReadsItsOwnTopic() async throws {
        let broker = try await MosquittoBroker()
        let config = try Self.load("""
            - mqtt: {topic: "fleet/+/+/tag.arrived", keys: {pi-1: KEYFILE}}
            - mqtt: {topic: "tele/+/SENSOR", format: tasmota, trust: broker}
            - mqtt: {topic: "nfc/+/scanned", format: uid, trust: broker}
            """, broker: broker)
        try await Self.whileReceiving(config) { inputs, buffer in
            #expect(inputs.map(\.connection.settings.clientID) == ["central-input", "central-input-1", "central-input-2"])
            let node = Self.tap("from-pi-1").json.serialized()
            try Self.publish(broker, "fleet/pi-1/door/tag.arrived", node, properties: try Self.signed(node))
            try Self.publish(broker, "tele/hall-esp/SENSOR", #"{"PN532":{"UID":"94D8FC5F"}}"#)
            try Self.publish(broker, "nfc/gate/scanned", "04:A2:24:B2")
            let events = try await InputTests.next(3, from: buffer)
            #expect(Set(events.map(\.reader)) == ["pi-1-door", "hall-esp", "gate"])
            #expect(Set(events.compactMap { $0.tag?.uid.hex }) == ["04a224b2", "94d8fc5f"])
            #expect(inputs.map(\.counters.received) == [1, 1, 1])
            #expect(inputs.map(\.counters.malformed) == [0, 0, 0])
            #expect(!broker.log.contains("already connected"), "no session was taken over:\n\(broker.log)")
        }
    }

    /// A persistent session keeps the subscription of an older config: what arrives on it is
    /// not the input's (another format, another topic) and is ignored, not read as an event.
    @Test func aMessageOutsideTheFilterIsIgnored() async throws {
        let broker = try await MosquittoBroker()
        let old = try Self.load(#"- mqtt: {topic: "nfc/+/scanned", format: uid, trust: broker}"#, broker: broker)
        try await Self.whileReceiving(old) { _, _ in }
        let config = try Self.load(#"- mqtt: {topic: "tele/+/SENSOR", format: tasmota, trust: broker}"#, broker: broker)
        try await Self.whileReceiving(config) { inputs, buffer in
            try Self.publish(broker, "nfc/gate/scanned", "04:A2:24:B2")
            try Self.publish(broker, "tele/hall-esp/SENSOR", #"{"PN532":{"UID":"94D8FC5F"}}"#)
            let events = try await InputTests.next(1, from: buffer)
            #expect(events.map(\.reader) == ["hall-esp"])
            #expect(inputs[0].counters.received == 2, "the old subscription still delivers")
            #expect(inputs[0].counters.ignored == 1)
            #expect(inputs[0].counters.malformed == 0)
        }
    }

    @Test func topicFiltersMatchAsTheBrokerDoes() throws {
        let cases: [(String, String, Bool)] = [
            ("tele/+/SENSOR", "tele/hall/SENSOR", true), ("tele/+/SENSOR", "tele/hall/STATE", false),
            ("tele/+/SENSOR", "tele/SENSOR", false), ("tele/+/SENSOR", "tele/a/b/SENSOR", false),
            ("nfc/#", "nfc", true), ("nfc/#", "nfc/a/b", true), ("nfc/#", "nfcx/a", false),
            ("$share/g/fleet/+/+/+", "fleet/pi/door/tag.arrived", true), ("#", "$SYS/broker/uptime", false),
            ("+/x", "$SYS/x", false), ("a//b", "a//b", true), ("a/+", "a/", true),
        ]
        for (filter, topic, expected) in cases {
            let parsed = try TopicFilter.parse(filter).get()
            #expect(parsed.matches(topic) == expected, "\(filter) ~ \(topic)")
        }
    }

    /// Another client connecting with the input's client id takes the session over: the
    /// connection tells a takeover (the broker closed it and accepted the next attempt at
    /// once; with MQTT 5 brokers that send reason 0x8E, the reason) from "no MQTT broker".
    @Test(arguments: ["3.1.1", "5"])
    func aTakeoverIsReportedAsOne(protocolVersion: String) async throws {
        let broker = try await MosquittoBroker()
        let config = try Self.load(#"- mqtt: {topic: "tele/+/SENSOR", format: tasmota, trust: broker}"#, broker: broker, protocolVersion: protocolVersion)
        try await Self.whileReceiving(config) { inputs, _ in
            let connection = inputs[0].connection
            // The intruder may itself be taken over by the input's reconnect before it is done: its exit status does not matter.
            let intruder = Process()
            intruder.executableURL = URL(fileURLWithPath: "/usr/bin/mosquitto_pub")
            intruder.arguments = ["-V", protocolVersion == "5" ? "mqttv5" : "mqttv311", "-p", String(broker.port), "-i", "central-input", "-t", "x", "-m", "y"]
            try intruder.run()
            intruder.waitUntilExit()
            #expect(await eventually { connection.takeovers >= 1 }, "\(broker.log)")
            #expect(connection.report.problem.contains("another client took over client id 'central-input'"))
        }
    }

    /// Issue 31: the HMAC key files are secrets like every other: one others can read, or a named
    /// pipe (which blocked the load), is refused by `check-config` (an error, not a warning) and `run`.
    @Test(arguments: [true, false])
    func keyFilesAreCheckedLikeEverySecret(checkConfig: Bool) throws {
        let folder = NSTemporaryDirectory() + "keys-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let readable = folder + "/readable", pipe = folder + "/pipe"
        _ = FileManager.default.createFile(atPath: readable, contents: Data(Self.key.utf8), attributes: [.posixPermissions: 0o644])
        #expect(mkfifo(pipe, 0o600) == 0)
        for (path, problem) in [(readable, "can be read by other users (mode 644)"), (pipe, "is not a regular file but a named pipe")] {
            let text = """
                state_dir: \(folder)/state
                mqtt: {host: 127.0.0.1, client_id: c, protocol: "5", sign: {key_id: pi-1, key_file: \(path)}}
                inputs: [{mqtt: {topic: "fleet/+/x", keys: {pi-1: \(path)}}}]
                routes: [{name: all, actions: [log]}]
                """
            let loader = ConfigLoader(
                registry: PluginRegistry([MQTTPlugin.self, LogPlugin.self], sources: [MQTTInput.self]), environment: [:],
                dryRun: checkConfig, missingSecretsAreWarnings: checkConfig)
            let errors = #expect(throws: ConfigErrors.self) { try loader.load(text: text, file: "test.yaml") }
            let messages = errors?.errors.filter { !$0.isWarning }.map(\.description) ?? []
            for option in ["mqtt.sign.key_file", "inputs[0].mqtt.keys.pi-1"] {
                #expect(messages.contains { $0.contains("\(option): '\(path)' \(problem)") }, "\(option): \(messages)")
            }
        }
    }

    @Test func formatsThatCannotSignNeedTrustBrokerWhichIsWarnedAbout() throws {
        let short = NSTemporaryDirectory() + "short-\(UUID().uuidString).key"
        _ = FileManager.default.createFile(atPath: short, contents: Data("abc".utf8), attributes: [.posixPermissions: 0o600])
        defer { try? FileManager.default.removeItem(atPath: short) }
        #expect(InputTests.problems(#"- mqtt: {topic: "tele/+/SENSOR", format: tasmota}"#).contains {
            $0.hasPrefix("test.yaml:4:") && $0.contains("format tasmota cannot carry a signature; set `trust: broker`")
        })
        #expect(InputTests.problems(#"- mqtt: {topic: "nfc/+", format: uid}"#).contains { $0.contains("format uid cannot carry a signature") })
        #expect(InputTests.problems(#"- mqtt: {topic: "fleet/+/x"}"#).contains { $0.contains("format tagrouter takes signed events only") })
        #expect(InputTests.problems(#"- mqtt: {topic: "fleet/+/x", keys: {pi-1: \#(short)}}"#).contains {
            $0.contains("set `mqtt.protocol: 5`")
        }, "MQTT 3.1.1 cannot carry the signature")
        #expect(InputTests.problems(#"- mqtt: {topic: "fleet/+/x", keys: {pi-1: \#(short)}}"#).contains {
            $0.contains("inputs[0].mqtt.keys.pi-1") && $0.contains("use at least 16 random bytes")
        }, "a short key is refused")
        #expect(InputTests.problems(#"- mqtt: {topic: "fleet/+/x", keys: {pi-1: \#(short)}, dedup: 0s}"#).contains {
            $0.contains("inputs[0].mqtt.dedup: must be more than 0s with `trust: signed`")
        })
        let config = try InputTests.load(#"- mqtt: {topic: "tele/+/SENSOR", format: tasmota, trust: broker}"#)
        #expect(config.warnings.map(\.description).contains {
            $0.contains("inputs[].mqtt.trust") && $0.contains("anyone who may publish on tele/+/SENSOR can run your routes")
        })
    }
}
