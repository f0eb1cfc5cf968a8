import ChildProcess
import Foundation
import Glibc
import Harness
import Lifecycle
import TestSupport
import Testing
@testable import MQTTPlugin

/// The shared connection against a real mosquitto: what subscribers see,
/// availability and last will, ordering across a broker restart, refusals.
@Suite(.timeLimit(.minutes(2)))
struct ConnectionTests {
    static func settings(_ broker: MosquittoBroker, clientID: String = "test-\(UUID().uuidString.prefix(8))", availability: String? = nil) -> MQTTSettings {
        MQTTSettings(
            host: "127.0.0.1", port: broker.port, clientID: clientID, keepalive: 60, protocolVersion: .v311, availabilityTopic: availability,
            backoff: Backoff(initial: .milliseconds(50), maximum: .milliseconds(500)))
    }

    @Test func publishesTopicPayloadQoSAndRetain() async throws {
        let broker = try await MosquittoBroker()
        let live = try Subscriber(port: broker.port, filter: "t/#")
        try await live.waitUntilSubscribed()
        let connection = MQTTConnection(Self.settings(broker))
        connection.start()
        try await connection.publish(MQTTMessage(topic: "t/zero", text: "a", qos: 0), hold: .seconds(10))
        try await connection.publish(MQTTMessage(topic: "t/one", text: "b", qos: 1), hold: .seconds(10))
        try await connection.publish(MQTTMessage(topic: "t/two", text: "c", qos: 2), hold: .seconds(10))
        try await connection.publish(MQTTMessage(topic: "t/kept", text: "d", qos: 1, retain: true), hold: .seconds(10))
        // Sorted: the subscriber completes QoS 2 later than QoS 1, so arrival order may differ.
        let seen = try await live.waitFor(count: 4).sorted { $0.text < $1.text }
        #expect(seen.map(\.topic) == ["t/zero", "t/one", "t/two", "t/kept"])
        #expect(seen.map(\.text) == ["a", "b", "c", "d"])
        #expect(seen.map(\.qos) == [0, 1, 2, 1])
        #expect(seen.allSatisfy { !$0.retained }, "live deliveries carry no retain flag")

        let late = try Subscriber(port: broker.port, filter: "t/#")
        let kept = try await late.waitFor("the retained message") { $0.topic == "t/kept" }
        #expect(kept.retained && kept.text == "d" && kept.qos == 1)
        await connection.stop()
    }

    @Test func messagesNobodyTakesWaitUpToTheLimitAndTheRestAreDroppedAndCounted() async throws {
        let broker = try await MosquittoBroker()
        var settings = Self.settings(broker)
        settings.subscriptions = ["flood/#"]
        let connection = MQTTConnection(settings)
        connection.start()
        await connection.subscribed()
        let sender = MQTTConnection(Self.settings(broker))
        sender.start()
        let sent = MQTTConnection.incomingLimit + 100
        for index in 0..<sent { _ = sender.enqueue(MQTTMessage(topic: "flood/\(index)", text: "\(index)", qos: 1), hold: .seconds(30)) }
        try await sender.publish(MQTTMessage(topic: "done", text: "", qos: 1), hold: .seconds(30))
        await sender.stop()
        // Nobody reads `incoming` meanwhile.
        let deadline = ContinuousClock.now + .seconds(60)
        while connection.received < sent, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        #expect(connection.received == sent)
        #expect(connection.droppedIncoming == 100)
        await connection.stop()
        var waiting: [String] = []
        for await incoming in connection.incoming { waiting.append(incoming.message.topic) }
        #expect(waiting == (0..<MQTTConnection.incomingLimit).map { "flood/\($0)" }, "the oldest wait, the newest are dropped")
    }

    @Test func announcesOnlineAndOfflineOnCleanStop() async throws {
        let broker = try await MosquittoBroker()
        let watcher = try Subscriber(port: broker.port, filter: "avail/#")
        try await watcher.waitUntilSubscribed()
        let connection = MQTTConnection(Self.settings(broker, availability: "avail/a"))
        connection.start()
        try await watcher.waitFor("online") { $0.topic == "avail/a" && $0.text == "online" }
        await connection.stop()
        try await watcher.waitFor("offline") { $0.topic == "avail/a" && $0.text == "offline" }
        let late = try Subscriber(port: broker.port, filter: "avail/a")
        let kept = try await late.waitFor("the retained availability") { _ in true }
        #expect(kept.text == "offline" && kept.retained)
    }

    @Test func brokerPublishesLastWillWhenTheClientDies() async throws {
        let broker = try await MosquittoBroker()
        let watcher = try Subscriber(port: broker.port, filter: "will/#")
        try await watcher.waitUntilSubscribed()
        let child = try ChildProcess(
            ChildCommand([BuiltProducts.executable("mqtt-bench").path, "hold", "--port", String(broker.port), "--client-id", "will-test", "--availability-topic", "will/reader"]),
            options: ChildOptions(stdout: .null, stderr: .null))
        let online = try await watcher.waitFor("online from the child") { $0.topic == "will/reader" && $0.text == "online" }
        #expect(online.qos == 1)
        kill(child.pid, SIGKILL)
        _ = await child.termination()
        try await watcher.waitFor("the last will") { $0.topic == "will/reader" && $0.text == "offline" }
        let late = try Subscriber(port: broker.port, filter: "will/reader")
        let kept = try await late.waitFor("the retained last will") { _ in true }
        #expect(kept.text == "offline" && kept.retained, "the will is retained, so HA sees it after a restart")
    }

    /// Messages handed in while the broker is down — and those in flight when
    /// it went — arrive after it is back, each at least once, in order.
    @Test func deliversEverythingInOrderAcrossABrokerRestart() async throws {
        let (broker, subscriber) = try await Subscriber.onRestartableBroker(filter: "seq/#")
        let connection = MQTTConnection(Self.settings(broker))
        connection.start()
        let hold = Duration.seconds(60)
        var deliveries: [MQTTDelivery] = []
        for index in 0..<400 { deliveries.append(connection.enqueue(MQTTMessage(topic: "seq/n", text: String(index)), hold: hold)) }
        try await deliveries[49].delivered()
        await broker.stop()
        for index in 400..<600 { deliveries.append(connection.enqueue(MQTTMessage(topic: "seq/n", text: String(index)), hold: hold)) }
        try await broker.start()
        for delivery in deliveries { try await delivery.delivered() }
        let seen = try await subscriber.waitUntil("600 distinct messages") { Set($0.map(\.text)).count >= 600 }
        var firstArrivals: [Int] = []
        var distinct = Set<Int>()
        for message in seen {
            let number = Int(message.text) ?? -1
            if distinct.insert(number).inserted { firstArrivals.append(number) }
        }
        #expect(firstArrivals == Array(0..<600), "first arrivals in publish order")
        #expect(seen.allSatisfy { $0.qos == 1 })
    }

    @Test func badCredentialsAreAClearError() async throws {
        var options = MosquittoBroker.Options()
        options.users = ["reader": "right"]
        let broker = try await MosquittoBroker(options)
        var settings = Self.settings(broker)
        settings.username = "reader"
        settings.password = "wrong"
        let connection = MQTTConnection(settings)
        connection.start()
        var refusal: MQTTError?
        for await status in connection.statusUpdates() {
            if case .disconnected(let error) = status, case .refused = error {
                refusal = error
                break
            }
        }
        let text = try #require(refusal).description
        #expect(text.contains("refused the connection"))
        #expect(text.contains("not authorised"))
        #expect(text.contains("password_file"))
        await #expect(throws: MQTTError.self) {
            try await connection.publish(MQTTMessage(topic: "x", text: "y"), hold: .milliseconds(300))
        }
        await connection.stop()
    }

    @Test func version5RefusalNamesTheCredentials() async throws {
        var options = MosquittoBroker.Options()
        options.users = ["reader": "right"]
        let broker = try await MosquittoBroker(options)
        var settings = Self.settings(broker)
        settings.protocolVersion = .v5
        settings.username = "reader"
        settings.password = "wrong"
        let connection = MQTTConnection(settings)
        connection.start()
        for await status in connection.statusUpdates() {
            guard case .disconnected(let error) = status, case .refused(_, let code, _) = error else { continue }
            #expect(MQTTError.credentialCodes.contains(code), "MQTT 5 reason code \(code)")
            #expect(error.description.contains("password_file"))
            break
        }
        await connection.stop()
    }

    @Test func tlsWithTheBrokersCAConnectsAndWithoutItIsRefused() async throws {
        var options = MosquittoBroker.Options()
        options.tls = true
        let broker = try await MosquittoBroker(options)
        var settings = Self.settings(broker)
        settings.tls = MQTTSettings.TLS(caFile: broker.caFile)
        let trusted = MQTTConnection(settings)
        trusted.start()
        try await trusted.publish(MQTTMessage(topic: "tls/ok", text: "x"), hold: .seconds(15))
        await trusted.stop()

        settings.tls = MQTTSettings.TLS()
        let untrusted = MQTTConnection(settings)
        untrusted.start()
        for await status in untrusted.statusUpdates() {
            guard case .disconnected(let error) = status else { continue }
            guard case .unreachable = error else {
                Issue.record("expected a TLS failure, got \(error)")
                break
            }
            break
        }
        await #expect(throws: MQTTError.self) {
            try await untrusted.publish(MQTTMessage(topic: "tls/no", text: "x"), hold: .milliseconds(300))
        }
        await untrusted.stop()

        settings.tls = MQTTSettings.TLS(insecure: true)
        let insecure = MQTTConnection(settings)
        insecure.start()
        try await insecure.publish(MQTTMessage(topic: "tls/insecure", text: "x"), hold: .seconds(15))
        await insecure.stop()
    }

    @Test func aMessageThatCannotBeDeliveredIsHandedBack() async throws {
        let port = try MosquittoBroker.freePort()
        let connection = MQTTConnection(MQTTSettings(
            host: "127.0.0.1", port: port, clientID: "nobody", keepalive: 60, protocolVersion: .v311,
            backoff: Backoff(initial: .milliseconds(50), maximum: .milliseconds(200))))
        connection.start()
        do {
            try await connection.publish(MQTTMessage(topic: "lost", text: "x"), hold: .milliseconds(300))
            Issue.record("published with no broker")
        } catch {
            guard case .notDelivered(let topic, _, let problem) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(topic == "lost")
            #expect(problem.contains("cannot reach"))
        }
        #expect(connection.backlog == 0, "handed back means gone from the backlog")
        await connection.stop()
    }

    @Test func cancellingTheWaitWithdrawsAQueuedMessage() async throws {
        let port = try MosquittoBroker.freePort()
        let connection = MQTTConnection(MQTTSettings(
            host: "127.0.0.1", port: port, clientID: "nobody", keepalive: 60, protocolVersion: .v311,
            backoff: Backoff(initial: .seconds(1), maximum: .seconds(30))))
        connection.start()
        let waiting = Task { () -> MQTTError? in
            do {
                try await connection.publish(MQTTMessage(topic: "later", text: "x"), hold: .seconds(60))
                return nil
            } catch {
                return error as? MQTTError
            }
        }
        while connection.backlog == 0 { await Task.yield() }
        waiting.cancel()
        let error = await waiting.value
        #expect(error == MQTTError.cancelled(topic: "later"))
        #expect(connection.backlog == 0, "withdrawn, so it cannot go out after the router spooled it")
        await connection.stop()
    }
}
