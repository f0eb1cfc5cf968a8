import Foundation
import Harness
import Synchronization
import TagCore
import TagRouter
import TestSupport
import Testing
@testable import MQTTPlugin

/// Topics rendered from tag text (`topic: "{{text}}"`) against a real mosquitto: a
/// topic the broker would drop the connection over fails that one event for good,
/// and the next event goes out on the same connection.
@Suite(.timeLimit(.minutes(2)))
struct HostileTopicTests {
    static let hostile: [(text: String, problem: String)] = [
        ("p/a\nb", "the topic has a control character U+000A at character 4"),
        ("p/a\u{85}b", "the topic has a control character U+0085 at character 4"),
        ("p/\u{7F}", "the topic has a control character U+007F at character 3"),
        ("p/\u{1B}[31m", "the topic has a control character U+001B at character 3"),
        ("p/\u{0}x", "the topic has a NUL character U+0000 at character 3"),
        ("p/\u{FFFF}", "the topic has a Unicode noncharacter U+FFFF at character 3"),
        ("p/+", "the topic has a wildcard (only subscriptions may use + and #) U+002B at character 3"),
        ("p/#", "the topic has a wildcard (only subscriptions may use + and #) U+0023 at character 3"),
        ("", "the topic is empty"),
        ("p/" + String(repeating: "x", count: 65_534), "the topic is 65536 bytes long; MQTT allows 65535"),
    ]

    static func tap(_ text: String) -> TagEvent {
        TagEvent(kind: .tagArrived, reader: "door", tag: TagInfo(uid: TagUID(bytes: [4, 1, 2, 3]), type: "ntag215"), text: text)
    }

    /// Every status the connection goes through until it stops.
    static func statuses(of connection: MQTTConnection) -> Task<[MQTTConnection.Status], Never> {
        let updates = connection.statusUpdates()
        return Task {
            var seen: [MQTTConnection.Status] = []
            for await status in updates { seen.append(status) }
            return seen
        }
    }

    @Test func eachHostileTopicFailsForGoodAndTheNextEventIsDelivered() async throws {
        let broker = try await MosquittoBroker()
        let subscriber = try Subscriber(port: broker.port, filter: "p/#")
        try await subscriber.waitUntilSubscribed()
        let plugin = try PluginTests.plugin("{host: 127.0.0.1, port: \(broker.port), hold: 5s, reconnect_delay: 50ms}")
        let action = try plugin.makeAction(try ConfigValue.parse(#"{topic: "{{text}}"}"#, spec: MQTTPlugin.actionSpec, path: "mqtt"), route: "door")
        let statuses = Self.statuses(of: plugin.connection)
        try await plugin.whileRunning {
        for (text, problem) in Self.hostile {
            do {
                try await action.perform(Delivery(event: Self.tap(text), route: "door"))
                Issue.record("published to \(ForbiddenCharacter.quoted(text))")
            } catch ActionError.permanent(let message) {
                #expect(message.hasPrefix("route 'door': cannot publish to \""), "\(message)")
                #expect(message.hasSuffix(": \(problem); check the action's topic template"), "\(message)")
                #expect(!message.contains("\n") && !message.contains("\u{85}"), "the log line stays one line: \(message)")
            } catch {
                Issue.record("a retryable failure for \(ForbiddenCharacter.quoted(text)): \(error)")
            }
        }
        try await action.perform(Delivery(event: Self.tap("p/ok"), route: "door"))
        try await subscriber.waitFor("the good event") { $0.topic == "p/ok" }
        #expect(plugin.connection.backlog == 0)
        }
        let seen = await statuses.value
        #expect(seen.filter { $0 == .connected }.count == 1, "one connection throughout: \(seen)")
        #expect(!seen.contains { if case .disconnected = $0 { true } else { false } }, "\(seen)")
        #expect(subscriber.messages.map(\.topic) == ["p/ok"])
    }

    /// Through the router with retries and a spool: the hostile event is failed
    /// at once, never retried and never spooled; the good one behind it arrives.
    @Test func throughTheRouterAHostileTopicIsNeitherRetriedNorSpooled() async throws {
        let broker = try await MosquittoBroker()
        let subscriber = try Subscriber(port: broker.port, filter: "p/#")
        try await subscriber.waitUntilSubscribed()
        let state = broker.directory.appendingPathComponent("state")
        let config = try ConfigLoader(registry: PluginRegistry([MQTTPlugin.self]), environment: [:]).load(text: """
            state_dir: \(state.path)
            readers: [{name: door}]
            mqtt: {host: 127.0.0.1, port: \(broker.port), hold: 5s, reconnect_delay: 50ms}
            routes:
              - name: door-text
                actions:
                  - mqtt: {topic: "p/{{text}}", retry: {attempts: 5, backoff: 1s}}
            """, file: "test.yaml")
        let router = Router(config: config)
        try await router.whileRunning { events in
            for text in ["a\nb", "a\u{85}b", "ok"] { _ = await events.send(Self.tap(text)) }
            try await subscriber.waitFor("the good event") { $0.topic == "p/ok" }
        }
        let counters = Array(router.counters.values)
        #expect(counters.map(\.delivered) == [1])
        #expect(counters.map(\.failed) == [2])
        #expect(counters.map(\.retried) == [0])
        #expect(counters.map(\.spooled) == [0])
        let spooled = (try? FileManager.default.subpathsOfDirectory(atPath: state.path)) ?? []
        #expect(spooled.filter { $0.hasSuffix(".json") }.isEmpty, "\(spooled)")
        #expect(subscriber.messages.map(\.topic) == ["p/ok"])
    }
}
